package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// argsLimit caps the arguments shown on a tool line, in runes: enough to
// recognise a call, short enough for one terminal line.
const argsLimit = 60

// shortArgs renders a call's JSON arguments on one line of at most limit
// runes. Arguments the model sent are untrusted: invalid JSON is shown as
// text, control characters are dropped, and nothing here can fail.
func shortArgs(raw json.RawMessage, limit int) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "{}" || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	s := string(raw)
	if json.Compact(&buf, raw) == nil {
		s = buf.String()
	}
	return truncate(oneLine(s), limit)
}

// oneLine replaces line breaks and tabs with spaces and shows every other
// control character (and byte that is not UTF-8) as an escape ([visible]),
// so a line stays one line and nothing in it drives the terminal.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, visible(s))
}

// truncate cuts s to at most limit runes, the last being an ellipsis.
func truncate(s string, limit int) string {
	if limit <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + "…"
}

// callLabel is "name args" for a call.
func callLabel(c *agent.CallInfo) string {
	if c == nil {
		return "(unknown call)"
	}
	name := oneLine(c.Name)
	if a := shortArgs(c.Arguments, argsLimit); a != "" {
		return name + " " + a
	}
	return name
}

// outcomeText says how a call ended, in a few words; for calls that did
// not succeed it adds the reason the model was given, cut to one line.
func outcomeText(r *agent.CallResult) string {
	if r == nil {
		return "ended"
	}
	switch {
	case r.Outcome == store.OutcomeOK && !r.IsError:
		return "ok"
	case r.Outcome == store.OutcomeOK || r.Outcome == store.OutcomeToolError:
		return "tool error: " + truncate(oneLine(r.Text), 100)
	case r.Outcome == "":
		return "ended"
	}
	return string(r.Outcome) + ": " + truncate(oneLine(r.Text), 100)
}

// succeeded reports whether a call's result counts as a success (✓).
func succeeded(r *agent.CallResult) bool {
	return r != nil && r.Outcome == store.OutcomeOK && !r.IsError
}

// duration formats d for a tool line: "850ms", "1.2s", "2m3s".
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// agentName is how an agent is named on screen.
func agentName(name string) string {
	if name == "" {
		return "assistant"
	}
	return "@" + name
}

// handoffText describes a handoff event.
func handoffText(h *agent.Handoff) string {
	if h == nil {
		return "handoff"
	}
	if h.Back {
		return fmt.Sprintf("%s answered; back to %s", agentName(h.From), agentName(h.To))
	}
	return fmt.Sprintf("%s hands this to %s", agentName(h.From), agentName(h.To))
}

// routerText describes the router pre-check's decision.
func routerText(d *agent.RouterDecision) string {
	if d == nil {
		return "router: no decision"
	}
	if d.NeedsTools {
		return "router: tools needed"
	}
	if strings.HasPrefix(d.Answer, "router failed") {
		return "router: " + truncate(oneLine(d.Answer), 100)
	}
	return "router: plain chat, no tools"
}

// progressText describes a running call's progress.
func progressText(ev agent.Event) string {
	p := ev.Progress
	if p == nil {
		return ""
	}
	var s string
	if p.Total > 0 {
		s = fmt.Sprintf("%.0f%%", 100*p.Progress/p.Total)
	} else if p.Progress > 0 {
		s = fmt.Sprintf("%g", p.Progress)
	}
	if p.Message != "" {
		s = strings.TrimSpace(s + " " + truncate(oneLine(p.Message), 60))
	}
	return s
}
