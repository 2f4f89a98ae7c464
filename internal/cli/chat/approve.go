package chat

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// decidedMsg reports how a Decide call went.
type decidedMsg struct {
	approval *store.Approval
	kind     agent.DecisionKind
	err      error
}

// onApproval queues a request for the user, or approves it at once with
// --yes.
func (m *model) onApproval(a *store.Approval) tea.Cmd {
	if a == nil {
		return nil
	}
	m.endAnswer()
	if a.Tool == agent.ElicitationTool {
		// A question needs its answer, --yes or not.
		m.approvals = append(m.approvals, a)
		m.ensureElicit()
		return nil
	}
	if m.opts.Yes {
		return m.decide(a, agent.Decision{Kind: agent.ApproveOnce, Reason: "approved with --yes"})
	}
	m.approvals = append(m.approvals, a)
	return nil
}

// onApprovalResolved drops a request that was settled elsewhere (expired,
// or decided in another client) and says so.
func (m *model) onApprovalResolved(a *store.Approval) {
	if a == nil {
		return
	}
	i := slices.IndexFunc(m.approvals, func(p *store.Approval) bool { return p.ID == a.ID })
	if i < 0 {
		return
	}
	m.approvals = slices.Delete(m.approvals, i, i+1)
	if m.elicit != nil && m.elicit.a.ID == a.ID {
		m.elicit = nil
		m.input.Reset()
		m.resetInputPlaceholder()
		m.ensureElicit()
	}
	if i == 0 && m.reason {
		m.reason = false
		m.input.Reset()
		m.resetInputPlaceholder()
	}
	if a.State == store.ApprovalExpired {
		m.note(fmt.Sprintf("approval for %s expired: %s", oneLine(a.Tool), oneLine(a.Reason)))
	} else {
		m.note(fmt.Sprintf("approval for %s was %s elsewhere", oneLine(a.Tool), a.State))
	}
}

// approvalKey handles a key while an approval is shown and reports
// whether it used the key.
func (m *model) approvalKey(k string) (tea.Cmd, bool) {
	a := m.approvals[0]
	switch k {
	case "y", "Y":
		return m.decideFirst(agent.Decision{Kind: agent.ApproveOnce}), true
	case "a", "A":
		return m.decideFirst(agent.Decision{Kind: agent.ApproveConversation}), true
	case "n", "N":
		m.reason = true
		m.input.Reset()
		m.input.Placeholder = fmt.Sprintf("Why not run %s? (optional; enter denies, esc goes back)", oneLine(a.Tool))
		return nil, true
	}
	return nil, false
}

// reasonKey handles a key while the user types why a call is denied.
func (m *model) reasonKey(k string) (tea.Cmd, bool) {
	switch k {
	case "enter":
		reason := strings.TrimSpace(m.input.Value())
		m.reason = false
		m.input.Reset()
		m.resetInputPlaceholder()
		return m.decideFirst(agent.Decision{Kind: agent.Deny, Reason: reason}), true
	case "esc":
		m.reason = false
		m.input.Reset()
		m.resetInputPlaceholder()
		return nil, true
	}
	return nil, false
}

// decideFirst answers the oldest request.
func (m *model) decideFirst(d agent.Decision) tea.Cmd {
	a := m.approvals[0]
	m.approvals = m.approvals[1:]
	m.ensureElicit()
	return m.decide(a, d)
}

// decide sends a decision off the UI goroutine: Decide writes to the store.
func (m *model) decide(a *store.Approval, d agent.Decision) tea.Cmd {
	d.By = m.opts.decider()
	ctx, b := m.ctx, m.b
	return func() tea.Msg {
		return decidedMsg{approval: a, kind: d.Kind, err: b.Decide(ctx, a.ID, d)}
	}
}

// onDecided notes the decision in the transcript.
func (m *model) onDecided(msg decidedMsg) {
	tool := oneLine(msg.approval.Tool)
	if msg.err != nil {
		m.opts.Logger.WarnContext(m.ctx, "deciding approval", logKeyTool, tool, logKeyErr, msg.err)
		m.errorNote(fmt.Sprintf("could not answer the approval for %s: %v", tool, oneLine(msg.err.Error())))
		return
	}
	if msg.approval.Tool == agent.ElicitationTool {
		m.note(map[agent.DecisionKind]string{agent.ApproveOnce: "answered", agent.Deny: "declined", agent.Cancel: "cancelled"}[msg.kind] + " the question of " + oneLine(msg.approval.Server))
		return
	}
	switch msg.kind {
	case agent.ApproveOnce:
		if m.opts.Yes {
			m.note("approved " + tool + " (--yes)")
		} else {
			m.note("approved " + tool + " once")
		}
	case agent.ApproveConversation:
		m.note("approved " + tool + " for this conversation")
	case agent.Deny:
		m.note("denied " + tool)
	case agent.Cancel:
		m.note("cancelled " + tool)
	}
}

// approvalPrompt is the line shown above the input for the oldest request.
func (m *model) approvalPrompt() string {
	if len(m.approvals) == 0 {
		return ""
	}
	if m.elicit != nil {
		return m.elicitPrompt()
	}
	a := m.approvals[0]
	label := callLabel(&agent.CallInfo{Name: a.Tool, Arguments: a.Arguments})
	who := ""
	if a.Server != "" && a.Server != "builtin" {
		who = " (" + oneLine(a.Server) + ")"
	}
	more := ""
	if n := len(m.approvals) - 1; n > 0 {
		more = fmt.Sprintf("  [+%d waiting]", n)
	}
	head := m.th.warn.Render("⚠ approve "+truncate(label, max(m.width-30, 20))) + who + more
	if m.reason {
		return head + "\n" + m.th.dim.Render("denying: type a reason, enter to deny, esc to go back")
	}
	// "a" says exactly what it covers: this tool, any arguments, in this
	// conversation only, from now on.
	return head + "\n" + m.th.dim.Render("y approve once · a approve "+oneLine(a.Tool)+" for this conversation (later calls, any arguments) · n decline")
}

func (m *model) resetInputPlaceholder() {
	m.input.Placeholder = "Ask anything, or /help"
}
