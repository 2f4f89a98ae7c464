package clitest

import (
	"encoding/json"
	"fmt"
	"io"
)

// Fake models in these tests speak the OpenAI chat-completions wire, the
// one a `provider: openai` model in switchboard.yaml is reached by. These
// write a streamed answer; the fakes decide what it says.

// StreamText writes a streamed chat completion answering text.
func StreamText(w io.Writer, text string) {
	b, _ := json.Marshal(text)
	fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", b)
	fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// StreamToolCall writes a streamed chat completion that calls tool with
// args (a JSON object's text) under the call ID id.
func StreamToolCall(w io.Writer, id, tool, args string) {
	fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":%q,\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"finish_reason\":null}]}\n\n", id, tool, args)
	fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
}

// Completion writes a chat completion that is not streamed, answering
// text.
func Completion(w io.Writer, text string) {
	b, _ := json.Marshal(text)
	fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`, b)
}
