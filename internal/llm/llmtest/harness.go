package llmtest

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Turn is a model reply described in neutral terms. A [Harness] renders it in
// its provider's wire format.
type Turn struct {
	// Text holds the text deltas in order; each is sent in its own wire event.
	Text []string
	// ToolCalls are the calls of this turn, in order.
	ToolCalls []ToolCallScript
	// Usage is reported when not zero. Harnesses render InputTokens and
	// OutputTokens at least.
	Usage llm.Usage
	// Stop is the neutral stop reason; the zero value means end_turn, or
	// tool_use when ToolCalls is not empty.
	Stop llm.StopReason
}

// StopReason returns t.Stop with its default applied.
func (t *Turn) StopReason() llm.StopReason {
	switch {
	case t.Stop != "":
		return t.Stop
	case len(t.ToolCalls) > 0:
		return llm.StopToolUse
	default:
		return llm.StopEndTurn
	}
}

// ToolCallScript is one tool call of a [Turn]. The arguments JSON is the
// concatenation of ArgChunks; each chunk is sent in its own wire event so
// adapters must assemble the fragments.
type ToolCallScript struct {
	ID        string
	Name      string
	ArgChunks []string
}

// Arguments returns the assembled arguments, "{}" when there are none.
func (c ToolCallScript) Arguments() string {
	s := ""
	for _, a := range c.ArgChunks {
		s += a
	}
	if s == "" {
		return "{}"
	}
	return s
}

// ErrorCase names an error response the suite asks a [Harness] to render.
type ErrorCase string

const (
	ErrorAuth             ErrorCase = "auth"              // 401 or 403
	ErrorRateLimit        ErrorCase = "rate_limit"        // 429
	ErrorServer           ErrorCase = "server"            // 500, 503 or 529
	ErrorContextTooLong   ErrorCase = "context_too_long"  // usually 400
	ErrorToolsUnsupported ErrorCase = "tools_unsupported" // usually 400
)

// Harness is what an adapter's test supplies to [Run].
type Harness struct {
	// Name is the provider name the adapter puts in [llm.Error.Provider].
	Name string
	// Model is the model name requests use.
	Model string
	// NewProvider returns the adapter under test sending every request to
	// baseURL (the fake server's root URL) with the given HTTP options (the
	// suite sets short timeouts and fast retries).
	NewProvider func(t *testing.T, baseURL string, opts llm.HTTPOptions) llm.Provider
	// Stream renders turn as the body of a successful streaming response,
	// one chunk per wire event, end marker included.
	Stream func(turn Turn) [][]byte
	// StreamContentType is the Content-Type of streaming responses;
	// empty means "text/event-stream".
	StreamContentType string
	// Error renders an error response: its status and body.
	Error func(c ErrorCase) (status int, body []byte)
	// Malformed returns the body of a stream that starts well and then
	// sends something that is not the provider's format (for example
	// "data: {not json" in an SSE stream).
	Malformed func() [][]byte
	// GeneratesIDs is true for wire formats without tool-call ids (Gemini):
	// the suite then checks ids are present and distinct, not equal to the
	// script's.
	GeneratesIDs bool
	// RetriesBeforeOutput is true for adapters that stream through
	// [llm.Transport.Stream], which retries failures that come before any
	// event reached the consumer; the DropBeforeOutputRetried case runs
	// only then.
	RetriesBeforeOutput bool
	// CheckToolResults asserts that body, the JSON request the server
	// received for [ToolResultsRequest], carries both tool calls and both
	// results (the second with is-error) in the provider's format.
	CheckToolResults func(t *testing.T, body []byte)
}

// ToolResultsRequest returns the request whose encoding
// [Harness.CheckToolResults] checks: a user question, an assistant turn
// with two tool calls (call_1 get_weather {"city":"Paris"}, call_2
// get_time {"tz":"Europe/Paris"}), and their results ("18C, cloudy"; the
// second an error, "unknown time zone").
func ToolResultsRequest(model string) *llm.Request {
	c1 := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	c2 := llm.ToolCall{ID: "call_2", Name: "get_time", Arguments: []byte(`{"tz":"Europe/Paris"}`)}
	return &llm.Request{
		Model:  model,
		System: "You are terse.",
		Messages: []llm.Message{
			llm.UserText("Weather and time in Paris?"),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{c1, c2}},
			llm.ToolResult(c1, "18C, cloudy", false),
			llm.ToolResult(c2, "unknown time zone", true),
		},
		Tools: []llm.ToolSpec{
			{Name: "get_weather", Description: "Weather for a city", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "get_time", Description: "Time in a zone", Parameters: []byte(`{"type":"object","properties":{"tz":{"type":"string"}}}`)},
		},
	}
}
