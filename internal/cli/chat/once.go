package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Exit codes of [RunOnce]. Usage errors (2) are the caller's.
const (
	exitOK    = 0
	exitError = 1
)

// RunOnce runs one turn of prompt without a terminal UI, for
// `switchboard chat -p PROMPT`, and returns the process exit code: 0 when
// the turn ended normally, 1 when it failed (the model could not be
// reached, a limit was hit, ctx was cancelled). The answer goes to
// opts.Stdout as the model wrote it; tool calls, handoffs, the router's
// decision, denials and errors go to opts.Stderr, a line each.
//
// With opts.Yes every call that needs approval is approved; otherwise it
// is denied, and the model is told to suggest --yes.
//
// When opts.ConversationID is empty, the new conversation's id is given
// on stderr at the end, so the next run can continue it.
func RunOnce(ctx context.Context, b Backend, prompt string, opts *Options) int {
	given := opts != nil && opts.ConversationID != ""
	o := opts.withDefaults()
	w := &onceWriter{out: o.Stdout, errw: o.Stderr}
	if strings.TrimSpace(prompt) == "" {
		w.errorf("the prompt is empty; give one with -p")
		return exitError
	}
	req := &agent.Request{
		ConversationID: o.ConversationID,
		User:           o.User,
		// The person at the terminal owns this Switchboard: an admin.
		Role:    store.RoleAdmin,
		Agent:   o.Agent,
		Model:   o.Model,
		Message: prompt,
	}
	code := exitOK
	for ev, err := range b.Run(ctx, req) {
		if err != nil {
			w.finish()
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				w.errorf("cancelled")
			} else {
				w.errorf("%v", err)
			}
			return exitError
		}
		if w.event(ctx, b, &o, ev) {
			code = exitError
		}
	}
	w.finish()
	if !given {
		w.errLine("· conversation %s (continue it with --conversation %s)", o.ConversationID, o.ConversationID)
	}
	if w.outErr != nil {
		w.errorf("writing the answer: %v", w.outErr)
		return exitError
	}
	return code
}

// onceWriter writes one turn's events for RunOnce.
type onceWriter struct {
	out, errw io.Writer
	// wrote is whether any answer text was written; last is its last
	// byte, to end the answer with exactly one newline.
	wrote bool
	last  byte
	// gap is set when something happened between two pieces of text
	// (a tool call, a handoff), so the next piece starts a new paragraph.
	gap bool
	// failed is set after an error event: the text that follows repeats
	// the error, which already went to stderr.
	failed bool
	// outErr is the first error writing the answer.
	outErr error
	// vis shows the answer's control characters as escapes (see
	// visible.go): a tool's escape sequences repeated by the model must
	// not reach the terminal.
	vis visibleStream
}

// event handles one event and reports whether it makes the run fail.
func (w *onceWriter) event(ctx context.Context, b Backend, o *Options, ev agent.Event) bool {
	switch ev.Kind {
	case agent.EventText:
		w.text(ev.Text)
	case agent.EventToolStart:
		w.gap = w.wrote
	case agent.EventToolEnd:
		w.gap = w.wrote
		mark := "✓"
		if !succeeded(ev.Result) {
			mark = "✗"
		}
		var d string
		if ev.Result != nil && ev.Result.Duration > 0 {
			d = " (" + duration(ev.Result.Duration) + ")"
		}
		w.errLine("%s %s: %s%s", mark, callLabel(ev.Call), outcomeText(ev.Result), d)
	case agent.EventApproval:
		w.approve(ctx, b, o, ev.Approval)
	case agent.EventHandoff:
		w.gap = w.wrote
		w.errLine("→ %s", handoffText(ev.Handoff))
	case agent.EventRouter:
		w.errLine("· %s", routerText(ev.Router))
	case agent.EventContext:
		w.errLine("· %s", ev.Text)
	case agent.EventError:
		msg := "the turn ended early"
		if ev.Error != nil {
			msg = oneLine(ev.Error.Message)
		}
		w.errorf("%s", msg)
		w.failed = true
		return true
	}
	return false
}

// approve answers an approval request: approved with --yes, else denied.
func (w *onceWriter) approve(ctx context.Context, b Backend, o *Options, a *store.Approval) {
	if a == nil {
		return
	}
	d := agent.Decision{Kind: agent.Deny, Reason: denyReason, By: o.decider()}
	if o.Yes {
		d = agent.Decision{Kind: agent.ApproveOnce, Reason: "approved with --yes", By: o.decider()}
	}
	if err := b.Decide(ctx, a.ID, d); err != nil {
		w.errLine("! could not answer the approval for %s: %v", oneLine(a.Tool), err)
		return
	}
	if !o.Yes {
		w.errLine("✗ %s needs approval: denied (%s)", oneLine(a.Tool), denyReason)
	}
}

func (w *onceWriter) text(s string) {
	if w.failed {
		return
	}
	if s = w.vis.next(s); s == "" {
		return
	}
	if w.gap {
		w.gap = false
		if w.last == '\n' {
			w.write("\n")
		} else {
			w.write("\n\n")
		}
	}
	w.write(s)
	w.wrote, w.last = true, s[len(s)-1]
}

// write writes the answer, keeping the first error (a closed pipe).
func (w *onceWriter) write(s string) {
	if w.outErr != nil {
		return
	}
	if _, err := io.WriteString(w.out, s); err != nil {
		w.outErr = err
	}
}

// finish ends the answer with a newline, so a shell prompt starts on its
// own line.
func (w *onceWriter) finish() {
	if rest := w.vis.flush(); rest != "" && !w.failed {
		w.write(rest)
		w.wrote, w.last = true, rest[len(rest)-1]
	}
	if w.wrote && w.last != '\n' {
		w.write("\n")
		w.last = '\n'
	}
}

// errLine writes one line to stderr; what it quotes (tool names, errors,
// results) shows its control characters as escapes.
func (w *onceWriter) errLine(format string, args ...any) {
	_, _ = io.WriteString(w.errw, visible(fmt.Sprintf(format, args...))+"\n")
}

func (w *onceWriter) errorf(format string, args ...any) {
	_, _ = io.WriteString(w.errw, "switchboard: "+visible(fmt.Sprintf(format, args...))+"\n")
}
