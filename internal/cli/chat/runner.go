package chat

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// turnRun is one turn running on its own goroutine. The goroutine ranges
// over Backend.Run and sends each item on events; the model receives them
// one at a time through [turnRun.next]. It ends when the stream ends or
// ctx is cancelled, then closes events and done.
type turnRun struct {
	id     int
	cancel context.CancelFunc
	// events is unbuffered: the goroutine waits until the UI takes each
	// event, so a slow terminal slows the turn's stream (whose own buffer
	// absorbs bursts) instead of queueing without bound.
	events chan turnItem
	done   chan struct{}
	// cancelled is set when the user cancelled the turn.
	cancelled bool
}

type turnItem struct {
	ev  agent.Event
	err error
}

// eventMsg carries one item of turn id; turnEndMsg says turn id ended.
type (
	eventMsg struct {
		turn int
		item turnItem
	}
	turnEndMsg struct{ turn int }
)

// startTurn starts a turn for message, with the prompt and resources of
// add (nil for none), and returns the command that receives its first
// event.
func (m *model) startTurn(message string, add *Additions) tea.Cmd {
	m.turns++
	ctx, cancel := context.WithCancel(m.ctx)
	t := &turnRun{id: m.turns, cancel: cancel, events: make(chan turnItem), done: make(chan struct{})}
	req := &agent.Request{
		ConversationID: m.conv, User: m.opts.User, Agent: m.opts.Agent, Model: m.opts.Model,
		Message: message,
		// The person at the terminal owns this Switchboard: an admin.
		Role: store.RoleAdmin,
	}
	b := m.b
	go func() {
		defer close(t.done)
		defer close(t.events)
		// Getting a prompt and reading resources talk to MCP servers:
		// here, off the UI goroutine.
		if err := expand(ctx, b, req, add); err != nil {
			select {
			case t.events <- turnItem{err: err}:
			case <-ctx.Done():
			}
			return
		}
		for ev, err := range b.Run(ctx, req) {
			select {
			case t.events <- turnItem{ev: ev, err: err}:
			case <-ctx.Done():
				// Leaving the range cancels the run and waits for it.
				return
			}
		}
	}()
	m.turn = t
	m.quitArmed = false
	return tea.Batch(t.next(), m.startSpinner())
}

// next is the command that waits for the turn's next event.
func (t *turnRun) next() tea.Cmd {
	return func() tea.Msg {
		it, ok := <-t.events
		if !ok {
			return turnEndMsg{turn: t.id}
		}
		return eventMsg{turn: t.id, item: it}
	}
}

// onEvent applies one event of the running turn.
func (m *model) onEvent(msg eventMsg) tea.Cmd {
	t := m.turn
	if t == nil || msg.turn != t.id {
		return nil // a late event of a turn that was replaced
	}
	if msg.item.err != nil {
		m.endAnswer()
		// A cancelled turn's error is ctx's; onTurnEnd says "cancelled".
		if !t.cancelled || !errors.Is(msg.item.err, context.Canceled) {
			m.errorNote(oneLine(msg.item.err.Error()))
		}
		return t.next()
	}
	ev := msg.item.ev
	var cmd tea.Cmd
	switch ev.Kind {
	case agent.EventText:
		cmd = m.appendText(ev.Agent, ev.Text)
	case agent.EventToolStart:
		m.endAnswer()
		e := &entry{kind: entryTool, agent: ev.Agent, call: ev.Call, started: m.now()}
		if ev.Call != nil {
			m.calls[ev.Call.ID] = e
		}
		m.add(e)
	case agent.EventToolEnd:
		m.endTool(ev)
	case agent.EventProgress:
		if ev.Call != nil {
			if e, ok := m.calls[ev.Call.ID]; ok {
				e.progress = progressText(ev)
			}
		}
	case agent.EventApproval:
		cmd = m.onApproval(ev.Approval)
	case agent.EventApprovalResolved:
		m.onApprovalResolved(ev.Approval)
	case agent.EventHandoff:
		m.endAnswer()
		m.note("→ " + handoffText(ev.Handoff))
	case agent.EventRouter:
		m.note("· " + routerText(ev.Router))
	case agent.EventContext:
		m.note("· " + ev.Text)
		if ev.Summary != "" {
			m.add(summaryEntry("summary of the conversation so far, written by the model to fit its context window", ev.Summary))
		}
	case agent.EventError:
		m.endAnswer()
		if ev.Error != nil {
			m.errorNote(oneLine(ev.Error.Message))
		}
	case agent.EventDone:
		m.endAnswer()
	}
	return tea.Batch(cmd, t.next())
}

// endTool finishes a call's line, adding one for calls that never
// started (denied, unknown tool).
func (m *model) endTool(ev agent.Event) {
	var e *entry
	if ev.Call != nil {
		e = m.calls[ev.Call.ID]
		delete(m.calls, ev.Call.ID)
	}
	if e == nil {
		m.endAnswer()
		e = &entry{kind: entryTool, agent: ev.Agent, call: ev.Call}
		m.add(e)
	}
	e.finished, e.ok, e.outcome, e.progress = true, succeeded(ev.Result), outcomeText(ev.Result), ""
	if ev.Result != nil {
		e.dur = ev.Result.Duration
	}
}

// onTurnEnd forgets the finished turn; its goroutine has closed events
// and is returning, so waiting for done is immediate.
func (m *model) onTurnEnd(msg turnEndMsg) {
	t := m.turn
	if t == nil || msg.turn != t.id {
		return
	}
	<-t.done
	t.cancel()
	m.turn = nil
	m.endAnswer()
	for id, e := range m.calls {
		e.finished, e.outcome = true, "cancelled"
		delete(m.calls, id)
	}
	if m.reason {
		m.input.Reset()
	}
	m.approvals, m.reason = nil, false
	m.resetInputPlaceholder()
	if t.cancelled {
		m.errorNote("cancelled")
	}
}

// cancelTurn cancels the running turn; its end arrives as a turnEndMsg.
func (m *model) cancelTurn() {
	if m.turn == nil || m.turn.cancelled {
		return
	}
	m.turn.cancelled = true
	m.turn.cancel()
	m.note("cancelling… (ctrl+c again quits)")
}

// appendText adds streamed text to the current answer and schedules a
// render unless one is due.
func (m *model) appendText(agentName, text string) tea.Cmd {
	if m.answer == nil || m.answer.agent != agentName {
		m.endAnswer()
		m.answer = &entry{kind: entryAnswer, agent: agentName}
		m.add(m.answer)
	}
	m.answer.text += m.answer.vis.next(text)
	m.answer.dirty = true
	if m.renderDue {
		return nil
	}
	m.renderDue = true
	return tea.Tick(m.throttle, func(time.Time) tea.Msg { return renderMsg{} })
}

// renderMsg asks for the streaming answer to be rendered again.
type renderMsg struct{}

// endAnswer renders the current answer in full and closes it.
func (m *model) endAnswer() {
	if m.answer != nil {
		m.answer.text += m.answer.vis.flush()
		m.answer.dirty = true // streaming renders were by blocks; render it whole
		m.renderEntry(m.answer)
		m.answer = nil
	}
}

// renderEntry renders a finished answer whole, once.
func (m *model) renderEntry(e *entry) {
	if e.dirty {
		e.rendered, e.dirty = m.md.render(e.text), false
		e.stable, e.stableLen = "", 0
		e.viewWidth = 0 // draw it again
	}
}

// add appends e to the transcript. Its text shows control characters as
// escapes (see visible.go), except a block's: blocks are the chat's own
// output, styled, whose cells were made one line (and visible) already.
func (m *model) add(e *entry) {
	if e.kind != entryBlock {
		e.text = visible(e.text)
	}
	m.entries = append(m.entries, e)
}

func (m *model) note(s string) { m.add(&entry{kind: entryNote, text: s}) }

func (m *model) errorNote(s string) { m.add(&entry{kind: entryError, text: s}) }

func (m *model) block(s string) { m.add(&entry{kind: entryBlock, text: s}) }
