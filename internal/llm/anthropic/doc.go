// Package anthropic is the [llm.Provider] for Anthropic's Messages API
// (POST {BaseURL}/v1/messages), hand-written on net/http: the system prompt
// as the top-level system field, tool_use and tool_result content blocks
// (the results of one turn grouped into one user message), images as base64
// or URL source blocks, and the streaming events (message_start,
// content_block_start/delta/stop with text, thinking and input_json deltas,
// message_delta, message_stop, ping, error).
//
// Layer: adapter. It imports llm and sse; only app imports it.
package anthropic
