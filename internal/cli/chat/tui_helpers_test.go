package chat

import (
	"context"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/switchboard-mcp/switchboard/internal/agent"
)

// harness drives a model the way a bubbletea program does, but from the
// test: messages go through Update, returned commands run on goroutines
// and their messages come back on msgs, to be applied by pump.
//
// Its backend's Run streams what the test sends on feed, and ends when
// feed is closed or the run's context is cancelled (then it closes
// cancelled).
type harness struct {
	t    *testing.T
	m    *model
	fb   *fakeBackend
	feed chan agent.Event
	// cancelled is closed when a run saw its context cancelled.
	cancelled  chan struct{}
	cancelOnce sync.Once
	msgs       chan tea.Msg
	// stop ends the command goroutines that are still waiting.
	stop chan struct{}
	quit bool
}

func newHarness(t *testing.T, fb *fakeBackend, opts *Options) *harness {
	t.Helper()
	h := newHarnessFor(t, fb, opts)
	h.fb = fb
	if fb.run == nil {
		fb.run = h.run
	}
	return h
}

// newHarnessFor drives a model on any backend; feed and cancelled are
// then unused.
func newHarnessFor(t *testing.T, b Backend, opts *Options) *harness {
	t.Helper()
	h := &harness{t: t, feed: make(chan agent.Event), cancelled: make(chan struct{}), msgs: make(chan tea.Msg), stop: make(chan struct{})}
	if opts == nil {
		opts = &Options{}
	}
	if opts.NewConversationID == nil {
		n := 0
		opts.NewConversationID = func() string { n++; return "conv" + string(rune('0'+n)) }
	}
	ctx, cancel := context.WithCancel(t.Context())
	h.m = newModel(ctx, b, opts)
	h.m.throttle = time.Millisecond
	t.Cleanup(func() {
		cancel()
		h.m.stop()
		close(h.stop)
	})
	h.exec(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	return h
}

func (h *harness) run(ctx context.Context, _ *agent.Request) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		defer func() {
			if ctx.Err() != nil {
				h.cancelOnce.Do(func() { close(h.cancelled) })
			}
		}()
		for {
			select {
			case ev, ok := <-h.feed:
				if !ok || ev.Kind == endRun {
					return
				}
				if !yield(ev, nil) {
					return
				}
			case <-ctx.Done():
				yield(agent.Event{}, ctx.Err())
				return
			}
		}
	}
}

// endRun, sent on feed, ends the current run (closing feed ends all).
const endRun agent.EventKind = "test: end run"

// finish ends the current run and waits until the model saw it end.
func (h *harness) finish() {
	h.t.Helper()
	h.feed <- agent.Event{Kind: endRun}
	h.pump("the turn to end", func(string) bool { return h.m.turn == nil })
}

// send applies msg and runs the command it returns.
func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.exec(cmd)
}

// exec runs cmd on a goroutine, as bubbletea does, expanding batches.
func (h *harness) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				h.exec(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case h.msgs <- msg:
		case <-h.stop:
		}
	}()
}

// pump applies messages from commands until the view satisfies cond.
func (h *harness) pump(what string, cond func(view string) bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond(h.view()) {
		select {
		case msg := <-h.msgs:
			if _, ok := msg.(tea.QuitMsg); ok {
				h.quit = true
				continue
			}
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; view:\n%s", what, h.view())
		}
	}
}

// pumpUntil waits for the view to contain s.
func (h *harness) pumpUntil(s string) {
	h.t.Helper()
	h.pump(strings.TrimSpace(s), func(v string) bool { return strings.Contains(v, s) })
}

// event sends ev into the running turn and waits until the view shows s.
func (h *harness) event(ev agent.Event, s string) {
	h.t.Helper()
	select {
	case h.feed <- ev:
	case <-time.After(10 * time.Second):
		h.t.Fatalf("the run did not take event %v", ev.Kind)
	}
	h.pumpUntil(s)
}

// view is the screen without colours.
func (h *harness) view() string { return ansi.Strip(h.m.View().Content) }

// key presses one key, named as bubbletea names it ("enter", "ctrl+c",
// "up", or a single character).
func (h *harness) key(name string) {
	h.send(keyMsg(name))
}

func keyMsg(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// typeLine types s and presses enter.
func (h *harness) typeLine(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	h.key("enter")
}
