package chat

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Update handles one message; see [model] for who may touch what.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if !m.quitting {
		m.refresh()
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	case tea.InterruptMsg:
		return m.interrupt()
	case eventMsg:
		return m.onEvent(msg)
	case turnEndMsg:
		m.onTurnEnd(msg)
		return nil
	case decidedMsg:
		m.onDecided(msg)
		return nil
	case historyMsg:
		m.onHistory(msg)
		return nil
	case promptsMsg:
		return m.onPrompts(msg)
	case completionMsg:
		m.onCompletion(msg)
		return nil
	case agentsMsg:
		if msg.err != nil {
			m.errorNote("listing agents: " + oneLine(msg.err.Error()))
		} else {
			m.block(agentsTable(msg.agents, m.width))
		}
		return nil
	case renderMsg:
		m.renderDue = false
		if m.answer != nil && m.answer.dirty {
			m.md.renderStreaming(m.answer)
			m.answer.dirty = false
		}
		return nil
	case spinner.TickMsg:
		if m.turn == nil {
			m.spinning = false
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// startSpinner starts the spinner's ticks unless they run already; they
// stop by themselves when no turn runs.
func (m *model) startSpinner() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

// key handles a key press.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.interrupt()
	}
	if m.turn == nil {
		m.quitArmed = false // any other key disarms the quit
	}
	switch s {
	case "pgup":
		m.vp.PageUp()
		return nil
	case "pgdown":
		m.vp.PageDown()
		return nil
	case summaryKey:
		if m.toggleSummaries() {
			return nil
		}
	}
	if m.reason {
		if cmd, ok := m.reasonKey(s); ok {
			return cmd
		}
	} else if m.elicit != nil {
		if cmd, ok := m.elicitKey(s); ok {
			return cmd
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd // a value being typed (elicit.go)
	} else if len(m.approvals) > 0 {
		cmd, _ := m.approvalKey(s)
		return cmd // other keys wait until the request is answered
	}
	if !m.reason {
		switch s {
		case "tab":
			return m.complete()
		case "enter":
			return m.submit()
		case "up":
			if m.recallable() && m.recall > 0 {
				m.recall--
				m.input.SetValue(m.sent[m.recall])
				return nil
			}
		case "down":
			if m.recall < len(m.sent) && m.input.Line() == m.input.LineCount()-1 {
				m.recall++
				if m.recall == len(m.sent) {
					m.input.Reset()
				} else {
					m.input.SetValue(m.sent[m.recall])
				}
				return nil
			}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// recallable reports whether up should recall an earlier message rather
// than move the cursor: the input is empty or shows a recalled message,
// and the cursor is on its first line.
func (m *model) recallable() bool {
	if m.input.Line() != 0 {
		return false
	}
	v := m.input.Value()
	return v == "" || m.recall < len(m.sent) && v == m.sent[m.recall]
}

// interrupt is ctrl+c: it cancels a running turn, or clears the input;
// when there is nothing to cancel, or it was pressed just before, it quits.
func (m *model) interrupt() tea.Cmd {
	switch {
	case m.quitArmed:
		return m.quit()
	case m.turn != nil:
		m.cancelTurn()
		m.quitArmed = true
		return nil
	case m.input.Value() != "":
		m.input.Reset()
		m.quitArmed = true
		return nil
	}
	return m.quit()
}

// quit cancels the running turn and ends the program; RunTUI waits for
// the turn's goroutine.
func (m *model) quit() tea.Cmd {
	if m.turn != nil {
		m.turn.cancelled = true
		m.turn.cancel()
	}
	m.quitting = true
	return tea.Quit
}

// submit handles enter: a command, or a message for the agent.
func (m *model) submit() tea.Cmd {
	raw := m.input.Value()
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	c, arg := parseInput(raw)
	if c == cmdNone && m.turn != nil {
		m.note("an answer is still coming; wait for it or press ctrl+c to cancel it")
		return nil
	}
	m.input.Reset()
	m.remember(raw)
	switch c {
	case cmdNone:
		m.endAnswer()
		m.add(&entry{kind: entryUser, text: arg})
		return m.startTurn(arg, m.attachments(arg))
	case cmdTools:
		m.block(toolsTable(m.b.Tools(), m.width))
	case cmdServers:
		m.block(serversTable(m.b.Servers(), m.width))
	case cmdAgents:
		return m.listAgents()
	case cmdNew:
		if m.turn != nil {
			m.note("an answer is still coming; cancel it with ctrl+c before starting a new conversation")
			return nil
		}
		m.entries, m.calls, m.answer = nil, map[string]*entry{}, nil
		m.conv = m.opts.NewConversationID()
		m.note(fmt.Sprintf("new conversation %s", m.conv))
	case cmdQuit:
		return m.quit()
	case cmdHelp:
		m.block(helpText)
	case cmdModel:
		m.pickModel(arg)
	case cmdPrompts:
		return m.listPrompts()
	case cmdPrompt:
		return m.runPrompt(arg)
	case cmdUnknown:
		m.errorNote(fmt.Sprintf("unknown command /%s; /help lists the commands (start with // to send a message that begins with /)", arg))
	}
	return nil
}

// remember adds a sent line to this session's recall list.
func (m *model) remember(s string) {
	if n := len(m.sent); n == 0 || m.sent[n-1] != s {
		m.sent = append(m.sent, s)
	}
	m.recall = len(m.sent)
}

// agentsMsg carries the named agents for /agents.
type agentsMsg struct {
	agents []store.Agent
	err    error
}

// listAgents reads the agents off the UI goroutine: it may query the store.
func (m *model) listAgents() tea.Cmd {
	ctx, b := m.ctx, m.b
	return func() tea.Msg {
		as, err := b.Agents(ctx)
		return agentsMsg{agents: as, err: err}
	}
}

// onHistory shows a stored conversation's earlier turns.
func (m *model) onHistory(msg historyMsg) {
	if msg.conv != m.conv {
		return
	}
	if msg.err != nil {
		m.errorNote(fmt.Sprintf("loading conversation %s: %s", m.conv, oneLine(msg.err.Error())))
		return
	}
	earlier := historyEntries(msg.msgs)
	if len(earlier) == 0 {
		m.note(fmt.Sprintf("new conversation %s — /help for commands", m.conv))
		return
	}
	head := &entry{kind: entryNote, text: fmt.Sprintf("conversation %s: %d earlier messages", m.conv, len(msg.msgs))}
	m.entries = append(append([]*entry{head}, earlier...), m.entries...)
}
