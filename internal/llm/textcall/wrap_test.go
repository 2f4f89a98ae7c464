package textcall

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

var weatherTools = []llm.ToolSpec{
	{Name: "get_weather", Description: "Weather for a city", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
	{Name: "get_time", Description: "Time in a zone"},
}

// counterIDs returns an id generator giving call_1, call_2...
func counterIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("call_%d", n.Add(1)) }
}

func textTurn(chunks ...string) llmtest.FakeReply {
	return llmtest.FakeReply{Turn: llmtest.Turn{Text: chunks}}
}

func collect(t *testing.T, p llm.Provider, req *llm.Request) []llm.Event {
	t.Helper()
	var evs []llm.Event
	for ev, err := range p.Stream(t.Context(), req) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func weatherRequest() *llm.Request {
	return &llm.Request{Model: "m", System: "Be brief.", Messages: []llm.Message{llm.UserText("Weather in Paris?")}, Tools: weatherTools}
}

func TestTextModeConvertsReply(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn(
		"Let me check. <tool_",
		`code>{"tool_name": "get_weather", "arguments": {"city": "Paris"}}</tool_code>`,
		`<tool_code>{"tool_name":"get_time","arguments":{}}</tool_code>`,
	))
	w := Wrap(fake, &Options{Mode: ModeText, NewID: counterIDs()})
	want := []llm.Event{
		{Type: llm.EventTextDelta, Text: "Let me check. "},
		{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}},
		{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_2", Name: "get_time", Arguments: []byte(`{}`)}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	if diff := cmp.Diff(want, collect(t, w, weatherRequest())); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	sent := fake.Requests()[0]
	if len(sent.Tools) != 0 {
		t.Errorf("tools were sent natively: %v", sent.Tools)
	}
	if diff := cmp.Diff([]string{"<tool_result"}, sent.Stop); diff != "" {
		t.Errorf("stop sequences mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(sent.System, "Be brief.\n\n# Tools\n") || !strings.Contains(sent.System, "- get_weather: Weather for a city\n  params: city (string, required)\n") {
		t.Errorf("system prompt lacks the manifest:\n%s", sent.System)
	}
}

func TestTextModeUnknownAndMalformed(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn(
		`<tool_code>{"tool_name":"launch","arguments":{"x":1}}</tool_code>`,
		`<tool_code>not json</tool_code>`,
	))
	w := Wrap(fake, &Options{Mode: ModeText, NewID: counterIDs()})
	want := []llm.Event{
		{Type: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "call_1", Name: "launch", Arguments: []byte(`{"x":1}`)}},
		{Type: llm.EventTextDelta, Text: "<tool_code>not json</tool_code>"},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	if diff := cmp.Diff(want, collect(t, w, weatherRequest())); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

func TestTextModeRendersHistory(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn("It is 18C."))
	w := Wrap(fake, &Options{Mode: ModeText})
	req := llmtest.ToolResultsRequest("m")
	req.Messages = append(req.Messages, llm.UserText("Thanks"))
	collect(t, w, req)
	got := fake.Requests()[0].Messages
	want := []llm.Message{
		llm.UserText("Weather and time in Paris?"),
		llm.AssistantText(`<tool_code>{"tool_name": "get_weather", "arguments": {"city":"Paris"}}</tool_code>` + "\n" +
			`<tool_code>{"tool_name": "get_time", "arguments": {"tz":"Europe/Paris"}}</tool_code>`),
		llm.UserText("<tool_result name=\"get_weather\">\n18C, cloudy\n</tool_result>\n" +
			"<tool_result name=\"get_time\" error=\"true\">\nunknown time zone\n</tool_result>"),
		llm.UserText("Thanks"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if len(req.Messages[1].ToolCalls) != 2 {
		t.Error("the caller's request was modified")
	}
}

func TestToolChoiceInText(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn("ok"), textTurn("ok"))
	w := Wrap(fake, &Options{Mode: ModeText})
	req := weatherRequest()
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "get_time"}
	collect(t, w, req)
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceNone}
	collect(t, w, req)
	reqs := fake.Requests()
	if !strings.Contains(reqs[0].System, "you must call the tool get_time") || !strings.Contains(reqs[0].System, "- get_time") {
		t.Errorf("forced tool not stated:\n%s", reqs[0].System)
	}
	if strings.Contains(reqs[1].System, "# Tools") {
		t.Errorf("tool choice none still sent the manifest:\n%s", reqs[1].System)
	}
}

func TestNativeModePassesThrough(t *testing.T) {
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{{ID: "x", Name: "get_time"}}}
	fake := llmtest.NewFakeProvider(llmtest.FakeReply{Turn: turn})
	w := Wrap(fake, &Options{Mode: ModeNative})
	if diff := cmp.Diff(llmtest.Events(turn), collect(t, w, weatherRequest())); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if got := fake.Requests()[0]; len(got.Tools) != 2 || got.System != "Be brief." {
		t.Errorf("native request was changed: %+v", got)
	}
}

// rejectingProvider rejects any request with tools, as a server without
// tool support does, and otherwise answers with text.
func rejectingProvider(reply string) *llmtest.FakeProvider {
	return &llmtest.FakeProvider{Respond: func(ctx context.Context, n int, req *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			if len(req.Tools) > 0 {
				yield(llm.Event{}, &llm.Error{Provider: "fake", Status: 400, Kind: llm.KindInvalidRequest, Err: llm.ErrToolsUnsupported})
				return
			}
			for _, ev := range llmtest.Events(llmtest.Turn{Text: []string{reply}}) {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}}
}

func TestAutoFallsBackAndRemembers(t *testing.T) {
	fake := rejectingProvider(`<tool_code>{"tool_name":"get_time","arguments":{}}</tool_code>`)
	w := Wrap(fake, &Options{NewID: counterIDs()})
	for range 2 {
		evs := collect(t, w, weatherRequest())
		if len(evs) != 2 || evs[0].ToolCall.Name != "get_time" {
			t.Fatalf("events = %+v, want a get_time call and stop", evs)
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (native, text, text)", len(reqs))
	}
	if len(reqs[0].Tools) == 0 || len(reqs[1].Tools) != 0 || len(reqs[2].Tools) != 0 {
		t.Errorf("want native then text twice; tools sent: %d, %d, %d", len(reqs[0].Tools), len(reqs[1].Tools), len(reqs[2].Tools))
	}
	// Another model is tried natively again.
	req := weatherRequest()
	req.Model = "other"
	collect(t, w, req)
	if reqs := fake.Requests(); len(reqs) != 5 || len(reqs[3].Tools) == 0 {
		t.Errorf("a different model should be tried natively first; %d requests", len(reqs))
	}
}

func TestAutoConcurrent(t *testing.T) {
	fake := rejectingProvider("plain answer")
	w := Wrap(fake, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			resp, err := llm.Collect(w.Stream(t.Context(), weatherRequest()))
			if err == nil && resp.Text() != "plain answer" {
				err = fmt.Errorf("text = %q", resp.Text())
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestAutoKeepsErrorsAfterOutput(t *testing.T) {
	boom := &llm.Error{Provider: "fake", Kind: llm.KindInvalidRequest, Err: llm.ErrToolsUnsupported}
	fake := llmtest.NewFakeProvider(llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"partial"}}, Err: boom})
	w := Wrap(fake, nil)
	var gotErr error
	for _, err := range w.Stream(t.Context(), weatherRequest()) {
		gotErr = err
	}
	if !errors.Is(gotErr, llm.ErrToolsUnsupported) || len(fake.Requests()) != 1 {
		t.Errorf("after output the error must be returned, not retried: err %v, %d requests", gotErr, len(fake.Requests()))
	}
}

// capableProvider is a fake that reports tool support per model.
type capableProvider struct {
	*llmtest.FakeProvider
	supports func(model string) (bool, error)
	asked    atomic.Int64
}

func (c *capableProvider) SupportsTools(ctx context.Context, model string) (bool, error) {
	c.asked.Add(1)
	return c.supports(model)
}

func TestAutoAsksToolSupport(t *testing.T) {
	tests := []struct {
		name      string
		supports  bool
		err       error
		wantTools int
		wantAsked int64
	}{
		{"supported", true, nil, 2, 1},
		{"unsupported", false, nil, 0, 1},
		{"check fails: try native", false, errors.New("down"), 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &capableProvider{
				FakeProvider: llmtest.NewFakeProvider(textTurn("a"), textTurn("b")),
				supports:     func(string) (bool, error) { return tc.supports, tc.err },
			}
			w := Wrap(fake, nil)
			collect(t, w, weatherRequest())
			collect(t, w, weatherRequest())
			for i, r := range fake.Requests() {
				if len(r.Tools) != tc.wantTools {
					t.Errorf("request %d sent %d tools, want %d", i, len(r.Tools), tc.wantTools)
				}
			}
			if got := fake.asked.Load(); got != tc.wantAsked {
				t.Errorf("SupportsTools called %d times, want %d", got, tc.wantAsked)
			}
		})
	}
}

func TestNoToolsPassesThrough(t *testing.T) {
	fake := llmtest.NewFakeProvider(textTurn(`{"name":"get_time","arguments":{}}`))
	w := Wrap(fake, &Options{Mode: ModeText})
	req := &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}
	evs := collect(t, w, req)
	if evs[0].Type != llm.EventTextDelta {
		t.Errorf("without tools the reply must pass untouched: %+v", evs)
	}
}

func BenchmarkTextStream(b *testing.B) {
	chunks := strings.SplitAfter(strings.Repeat("Some words of an answer, ", 40)+
		`<tool_code>{"tool_name":"get_weather","arguments":{"city":"Paris"}}</tool_code>`, " ")
	fake := llmtest.NewFakeProvider()
	fake.Respond = func(ctx context.Context, n int, req *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			for _, c := range chunks {
				if !yield(llm.Event{Type: llm.EventTextDelta, Text: c}, nil) {
					return
				}
			}
			yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
		}
	}
	w := Wrap(fake, &Options{Mode: ModeText})
	req := weatherRequest()
	b.ReportMetric(float64(len(chunks)), "chunks/op")
	defer cpuPerOp(b)()
	for b.Loop() {
		for _, err := range w.Stream(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestTextModeEndings(t *testing.T) {
	boom := &llm.Error{Provider: "fake", Kind: llm.KindConnection, Err: llm.ErrIncomplete}
	tests := []struct {
		name    string
		reply   llmtest.FakeReply
		want    []llm.Event
		wantErr error
	}{
		{
			"cut mid-block at max tokens",
			llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{`Sure <tool_code>{"tool_name": "get_we`}, Stop: llm.StopMaxTokens}},
			[]llm.Event{
				{Type: llm.EventTextDelta, Text: "Sure "},
				{Type: llm.EventTextDelta, Text: `<tool_code>{"tool_name": "get_we`},
				{Type: llm.EventStop, StopReason: llm.StopMaxTokens},
			},
			nil,
		},
		{
			"error mid-block drops the held text",
			llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{`Sure <tool_code>{"tool_name"`}}, Err: boom},
			[]llm.Event{{Type: llm.EventTextDelta, Text: "Sure "}},
			llm.ErrIncomplete,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := Wrap(llmtest.NewFakeProvider(tc.reply), &Options{Mode: ModeText})
			var evs []llm.Event
			var gotErr error
			for ev, err := range w.Stream(t.Context(), weatherRequest()) {
				if err != nil {
					gotErr = err
					break
				}
				evs = append(evs, ev)
			}
			if diff := cmp.Diff(tc.want, evs); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(gotErr, tc.wantErr) || (tc.wantErr == nil) != (gotErr == nil) {
				t.Errorf("error = %v, want %v", gotErr, tc.wantErr)
			}
		})
	}
}

// TestRenderedCallsParse checks that the calls written into the history are
// exactly what the parser reads back, so the model is shown the format it
// is asked to write.
func TestRenderedCallsParse(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "a", Name: "get_weather", Arguments: []byte(`{"city":"Paris","days":[1,2],"note":"a \"quoted\" </tool_code> word"}`)},
		{ID: "b", Name: "get_time", Arguments: []byte(`{}`)},
		{ID: "c", Name: "get_time", Arguments: nil},
	}
	msgs := renderHistory([]llm.Message{{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Looking.")}, ToolCalls: calls}})
	parts := NewParser([]string{"get_weather", "get_time"}).Parse(msgs[0].Text())
	var got []llm.ToolCall
	for _, p := range parts {
		if p.Call != nil {
			got = append(got, llm.ToolCall{ID: "", Name: p.Call.Name, Arguments: p.Call.Arguments})
		}
	}
	want := []llm.ToolCall{
		{Name: "get_weather", Arguments: []byte(`{"city":"Paris","days":[1,2],"note":"a \"quoted\" </tool_code> word"}`)},
		{Name: "get_time", Arguments: []byte(`{}`)},
		{Name: "get_time", Arguments: []byte(`{}`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}
