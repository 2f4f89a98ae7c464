package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Run runs the conformance suite against the adapter h describes. Every
// adapter's test calls it:
//
//	func TestConformance(t *testing.T) { llmtest.Run(t, harness()) }
//
// The cases use real HTTP on loopback, short timeouts and fast retries; the
// whole suite takes a few seconds (one case waits a real one-second
// Retry-After).
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Name == "" || h.NewProvider == nil || h.Stream == nil || h.Error == nil || h.Malformed == nil || h.CheckToolResults == nil {
		t.Fatal("llmtest.Run: the Harness needs Name, NewProvider, Stream, Error, Malformed and CheckToolResults")
	}
	for _, c := range suiteCases() {
		t.Run(c.name, func(t *testing.T) { c.run(t, &h) })
	}
}

type suiteCase struct {
	name string
	run  func(t *testing.T, h *Harness)
}

func suiteCases() []suiteCase {
	return []suiteCase{
		{"PlainText", func(t *testing.T, h *Harness) { checkTurn(t, h, Turn{Text: []string{"Hello there."}}) }},
		{"StreamedText", func(t *testing.T, h *Harness) {
			checkTurn(t, h, Turn{Text: []string{"Hel", "lo", ", wor", "ld", " \u00e9\u00e8 \U0001F600", "\n"}})
		}},
		{"Usage", func(t *testing.T, h *Harness) {
			checkTurn(t, h, Turn{Text: []string{"ok"}, Usage: llm.Usage{InputTokens: 12, OutputTokens: 34}})
		}},
		{"MaxTokens", func(t *testing.T, h *Harness) {
			checkTurn(t, h, Turn{Text: []string{"cut"}, Stop: llm.StopMaxTokens})
		}},
		{"OneToolCall", func(t *testing.T, h *Harness) { checkTurn(t, h, Turn{ToolCalls: []ToolCallScript{weatherCall()}}) }},
		{"SeveralToolCalls", func(t *testing.T, h *Harness) {
			checkTurn(t, h, Turn{
				Text: []string{"Let me look."}, ToolCalls: []ToolCallScript{weatherCall(), timeCall()},
				Usage: llm.Usage{InputTokens: 5, OutputTokens: 7},
			})
		}},
		{"ToolCallWithoutArguments", func(t *testing.T, h *Harness) {
			checkTurn(t, h, Turn{ToolCalls: []ToolCallScript{{ID: "call_9", Name: "now"}}})
		}},
		{"FragmentsSplitAtEveryByte", testEveryByte},
		{"ToolResultsSent", testToolResults},
		{"ErrorAuth", func(t *testing.T, h *Harness) {
			testError(t, h, ErrorAuth, 1, func(e *llm.Error) bool { return e.IsAuth() && !e.IsRetryable() })
		}},
		{"ErrorContextTooLong", func(t *testing.T, h *Harness) {
			testError(t, h, ErrorContextTooLong, 1, func(e *llm.Error) bool { return e.IsContextTooLarge() && !e.IsRetryable() })
		}},
		{"ErrorToolsUnsupported", func(t *testing.T, h *Harness) {
			testError(t, h, ErrorToolsUnsupported, 1, func(e *llm.Error) bool {
				return errors.Is(e, llm.ErrToolsUnsupported) && !e.IsRetryable()
			})
		}},
		{"RateLimitExhausted", func(t *testing.T, h *Harness) {
			testError(t, h, ErrorRateLimit, 3, func(e *llm.Error) bool { return e.Kind == llm.KindRateLimit && e.IsRetryable() })
		}},
		{"ServerErrorExhausted", func(t *testing.T, h *Harness) {
			testError(t, h, ErrorServer, 3, func(e *llm.Error) bool { return e.Kind == llm.KindServer && e.IsRetryable() })
		}},
		{"ServerErrorRetried", func(t *testing.T, h *Harness) { testRetried(t, h, ErrorServer, "") }},
		{"RateLimitHonoursRetryAfter", func(t *testing.T, h *Harness) { testRetried(t, h, ErrorRateLimit, "1") }},
		{"CancelMidStream", testCancel},
		{"BreakReleasesConnection", testBreak},
		{"DroppedConnection", testDropped},
		{"DropBeforeOutputRetried", testDropBeforeOutput},
		{"Malformed", testMalformed},
		{"IdleTimeout", testIdleTimeout},
		{"FirstTokenTimeout", testFirstTokenTimeout},
		{"RangedTwice", testRangedTwice},
		{"ConcurrentStreams", testConcurrent},
	}
}

func weatherCall() ToolCallScript {
	return ToolCallScript{ID: "call_1", Name: "get_weather", ArgChunks: []string{`{"ci`, `ty": "Pa`, `ris", "days"`, `: 2}`}}
}

func timeCall() ToolCallScript {
	return ToolCallScript{ID: "call_2", Name: "get_time", ArgChunks: []string{`{"tz": "Europe/Paris"}`}}
}

// suiteOptions are the HTTP options every case starts from.
func suiteOptions() llm.HTTPOptions {
	return llm.HTTPOptions{
		FirstTokenTimeout: 10 * time.Second,
		IdleTimeout:       10 * time.Second,
		InitialBackoff:    time.Millisecond,
		MaxRetryWait:      5 * time.Second,
	}
}

func testRequest(h *Harness) *llm.Request {
	return &llm.Request{
		Model:    h.Model,
		Messages: []llm.Message{llm.UserText("Hi")},
		Tools:    ToolResultsRequest(h.Model).Tools,
	}
}

// caseContext bounds a case so a hang fails instead of stalling the run.
func caseContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (h *Harness) reply(turn Turn) Reply {
	return Reply{Header: h.header(), Chunks: h.Stream(turn)}
}

func (h *Harness) header() http.Header {
	ct := h.StreamContentType
	if ct == "" {
		ct = "text/event-stream"
	}
	return http.Header{"Content-Type": {ct}}
}

// record ranges over a stream, gathering events until the error that ends it.
func record(ctx context.Context, p llm.Provider, req *llm.Request) ([]llm.Event, error) {
	var evs []llm.Event
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// eventOpts compare events: tool arguments as JSON values, the raw stop
// reason ignored (each provider has its own word).
func eventOpts(h *Harness) cmp.Options {
	opts := cmp.Options{
		cmpopts.IgnoreFields(llm.Event{}, "RawStopReason"),
		cmpopts.IgnoreFields(llm.Response{}, "RawStopReason"),
		cmp.Comparer(jsonEqual),
	}
	if h.GeneratesIDs {
		opts = append(opts, cmpopts.IgnoreFields(llm.ToolCall{}, "ID"))
	}
	return opts
}

func jsonEqual(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(va, vb)
}

// checkTurn serves turn and checks both the events and what Collect gathers.
func checkTurn(t *testing.T, h *Harness, turn Turn) {
	srv := NewServer(t, h.reply(turn), h.reply(turn))
	p := h.NewProvider(t, srv.URL, suiteOptions())
	ctx := caseContext(t)
	evs, err := record(ctx, p, testRequest(h))
	if err != nil {
		t.Fatalf("streaming: %v", err)
	}
	if diff := cmp.Diff(Events(turn), evs, eventOpts(h)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if h.GeneratesIDs {
		checkIDs(t, evs)
	}
	resp, err := llm.Collect(p.Stream(ctx, testRequest(h)))
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if diff := cmp.Diff(Response(turn), resp, eventOpts(h)); diff != "" {
		t.Errorf("Collect mismatch (-want +got):\n%s", diff)
	}
}

func checkIDs(t *testing.T, evs []llm.Event) {
	t.Helper()
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Type != llm.EventToolCall {
			continue
		}
		if ev.ToolCall.ID == "" || seen[ev.ToolCall.ID] {
			t.Errorf("tool call %q has an empty or repeated id %q", ev.ToolCall.Name, ev.ToolCall.ID)
		}
		seen[ev.ToolCall.ID] = true
	}
}
