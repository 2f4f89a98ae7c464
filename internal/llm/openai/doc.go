// Package openai is the [llm.Provider] for the OpenAI chat completions API
// (POST {BaseURL}/chat/completions), hand-written on net/http. The same wire
// API is served by Ollama (/v1), vLLM, llama.cpp's server and LM Studio, so
// the adapter tolerates their differences: tool calls without ids, with
// whole or object arguments, or reusing one index; reasoning_content deltas;
// missing usage; error bodies that are plain strings. A server that rejects
// tools yields an error wrapping [llm.ErrToolsUnsupported]. Which server it
// is, and whether it gives a model native tools, is asked once per model
// ([Client.ToolReport]) for `toolMode: auto`.
//
// Layer: adapter. It imports llm and sse; only app imports it.
package openai
