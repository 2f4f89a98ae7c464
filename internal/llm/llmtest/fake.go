package llmtest

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// FakeReply is one scripted answer of a [FakeProvider].
type FakeReply struct {
	// Turn is rendered as events: text deltas, tool calls, usage, stop.
	Turn Turn
	// Err, when set, is yielded after the turn's text and tool calls in
	// place of usage and stop.
	Err error
	// Block makes the stream wait, after the turn's text and tool calls,
	// until ctx is cancelled, then yield ctx's error.
	Block bool
}

// FakeProvider is an in-process [llm.Provider] that answers from a script,
// without HTTP. It records every request. It is safe for concurrent use.
type FakeProvider struct {
	// Respond, when set, answers every request instead of the script; n
	// counts requests from zero.
	Respond func(ctx context.Context, n int, req *llm.Request) iter.Seq2[llm.Event, error]

	mu       sync.Mutex
	script   []FakeReply   // guarded by mu
	requests []llm.Request // guarded by mu
}

var _ llm.Provider = (*FakeProvider)(nil)

// NewFakeProvider returns a FakeProvider that plays replies in order; a
// request beyond them gets an error.
func NewFakeProvider(replies ...FakeReply) *FakeProvider {
	return &FakeProvider{script: replies}
}

// Push appends replies to the script.
func (f *FakeProvider) Push(replies ...FakeReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, replies...)
}

// Requests returns copies of the requests received so far.
func (f *FakeProvider) Requests() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.requests...)
}

// Stream implements [llm.Provider].
func (f *FakeProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return llm.Once(func(yield func(llm.Event, error) bool) {
		f.mu.Lock()
		n := len(f.requests)
		cp := *req
		cp.Messages = append([]llm.Message(nil), req.Messages...)
		cp.Tools = append([]llm.ToolSpec(nil), req.Tools...)
		f.requests = append(f.requests, cp)
		var rep FakeReply
		ok := n < len(f.script)
		if ok {
			rep = f.script[n]
		}
		respond := f.Respond
		f.mu.Unlock()
		if respond != nil {
			respond(ctx, n, req)(yield)
			return
		}
		if !ok {
			yield(llm.Event{}, fmt.Errorf("fake provider: no scripted reply for request %d", n+1))
			return
		}
		if err := ctx.Err(); err != nil {
			yield(llm.Event{}, err)
			return
		}
		evs := Events(rep.Turn)
		body := evs[:len(evs)-1]
		if rep.Err != nil || rep.Block {
			body = evs[:len(evs)-tail(rep.Turn)]
		}
		for _, ev := range body {
			if !yield(ev, nil) {
				return
			}
		}
		switch {
		case rep.Block:
			<-ctx.Done()
			yield(llm.Event{}, ctx.Err())
		case rep.Err != nil:
			yield(llm.Event{}, rep.Err)
		default:
			yield(evs[len(evs)-1], nil)
		}
	})
}

// tail counts the usage and stop events at the end of Events(t).
func tail(t Turn) int {
	if t.Usage != (llm.Usage{}) {
		return 2
	}
	return 1
}

// Events returns the events a conforming adapter yields for t: one text
// delta per Text entry, one tool call per call, usage when not zero, stop.
func Events(t Turn) []llm.Event {
	var evs []llm.Event
	for _, s := range t.Text {
		evs = append(evs, llm.Event{Type: llm.EventTextDelta, Text: s})
	}
	for _, c := range t.ToolCalls {
		evs = append(evs, llm.Event{Type: llm.EventToolCall, ToolCall: llm.ToolCall{
			ID: c.ID, Name: c.Name, Arguments: []byte(c.Arguments()),
		}})
	}
	if t.Usage != (llm.Usage{}) {
		evs = append(evs, llm.Event{Type: llm.EventUsage, Usage: t.Usage})
	}
	return append(evs, llm.Event{Type: llm.EventStop, StopReason: t.StopReason()})
}

// Response returns the [llm.Response] that [llm.Collect] gathers from a
// conforming stream for t (RawStopReason left empty).
func Response(t Turn) *llm.Response {
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Usage: t.Usage, StopReason: t.StopReason()}
	if s := strings.Join(t.Text, ""); s != "" {
		r.Message.Content = []llm.Part{llm.TextPart(s)}
	}
	for _, c := range t.ToolCalls {
		r.Message.ToolCalls = append(r.Message.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: []byte(c.Arguments())})
	}
	return r
}
