package chat

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// elicitation is a server's question (an approval of
// [agent.ElicitationTool]) being answered: in form mode one field at a
// time (text and numbers typed, booleans y/n, choices picked from a list),
// then a last step that sends, declines or cancels; in URL mode the URL is
// printed and the person says when they are done. esc cancels and ctrl+d
// declines at every step.
type elicitation struct {
	a       *store.Approval
	message string
	url     string
	form    *tools.ElicitForm
	// field is the field asked now; len(form.Fields) is the last step.
	field  int
	values map[string]any
	// cursor is the highlighted option of a choice or multi field; picked
	// the options of a multi field chosen so far.
	cursor int
	picked map[string]bool
}

func newElicitation(a *store.Approval) (*elicitation, error) {
	var args struct {
		Message string          `json:"message"`
		Mode    string          `json:"mode"`
		Schema  json.RawMessage `json:"schema"`
		URL     string          `json:"url"`
	}
	if err := json.Unmarshal(a.Arguments, &args); err != nil {
		return nil, fmt.Errorf("reading the question: %w", err)
	}
	e := &elicitation{a: a, message: args.Message, values: map[string]any{}}
	if args.Mode == "url" {
		e.url = args.URL
		return e, nil
	}
	f, err := tools.ParseElicitForm(args.Schema)
	if err != nil {
		return nil, err
	}
	e.form = f
	return e, nil
}

// ensureElicit starts the question at the head of the queue, if the head
// is one and it is not shown yet.
func (m *model) ensureElicit() {
	if m.elicit != nil || len(m.approvals) == 0 || m.approvals[0].Tool != agent.ElicitationTool {
		return
	}
	a := m.approvals[0]
	e, err := newElicitation(a)
	if err != nil {
		// Only esc and ctrl+d answer it.
		m.errorNote(fmt.Sprintf("%s asked a question Switchboard cannot show (%v); esc cancels it, ctrl+d declines it", oneLine(a.Server), err))
		m.elicit = &elicitation{a: a, message: "(a question that cannot be shown)"}
		return
	}
	m.elicit = e
	m.note(fmt.Sprintf("%s asks: %s", oneLine(a.Server), oneLine(e.message)))
	if e.url != "" {
		host := e.url
		if u, err := url.Parse(e.url); err == nil {
			host = u.Host
		}
		m.note(fmt.Sprintf("open this page on %s yourself: %s", host, e.url))
		return
	}
	m.enterField()
}

// enterField prepares the input for the current field.
func (m *model) enterField() {
	e := m.elicit
	m.input.Reset()
	e.cursor, e.picked = 0, map[string]bool{}
	if e.field >= len(e.form.Fields) {
		m.input.Placeholder = "enter sends these answers · ctrl+d declines · esc cancels"
		return
	}
	f := &e.form.Fields[e.field]
	m.input.Placeholder = "type the value, enter for the next field"
	if f.Default != nil && (f.Kind == tools.ElicitString || f.Kind == tools.ElicitNumber || f.Kind == tools.ElicitInteger) {
		m.input.SetValue(fmt.Sprint(f.Default))
	}
	if f.Kind == tools.ElicitMulti {
		if d, ok := f.Default.([]any); ok {
			for _, v := range d {
				e.picked[fmt.Sprint(v)] = true
			}
		}
	}
	if f.Kind == tools.ElicitChoice {
		for i, o := range f.Options {
			if o.Value == f.Default {
				e.cursor = i
			}
		}
	}
}

// elicitKey handles a key while a question is shown; keys it does not use
// go to the input (the value being typed).
func (m *model) elicitKey(k string) (tea.Cmd, bool) {
	e := m.elicit
	switch k {
	case "esc":
		return m.answerElicit(agent.Decision{Kind: agent.Cancel}), true
	case "ctrl+d":
		return m.answerElicit(agent.Decision{Kind: agent.Deny}), true
	}
	if e.form == nil && e.url == "" {
		return nil, true
	}
	if e.url != "" {
		switch k {
		case "enter", "y":
			return m.answerElicit(agent.Decision{Kind: agent.ApproveOnce}), true
		case "n":
			return m.answerElicit(agent.Decision{Kind: agent.Deny}), true
		}
		return nil, true
	}
	if e.field >= len(e.form.Fields) {
		if k != "enter" {
			return nil, true
		}
		if err := e.form.Check(e.values); err != nil {
			m.errorNote(err.Error())
			e.field = 0
			m.enterField()
			return nil, true
		}
		return m.answerElicit(agent.Decision{Kind: agent.ApproveOnce, Content: e.values}), true
	}
	f := &e.form.Fields[e.field]
	switch f.Kind {
	case tools.ElicitBoolean:
		switch k {
		case "y", "Y":
			return m.setField(f, true), true
		case "n", "N":
			return m.setField(f, false), true
		case "enter":
			if f.Default != nil {
				return m.setField(f, f.Default), true
			}
			return m.skipField(f), true
		}
		return nil, true
	case tools.ElicitChoice, tools.ElicitMulti:
		switch k {
		case "up":
			e.cursor = max(e.cursor-1, 0)
		case "down":
			e.cursor = min(e.cursor+1, len(f.Options)-1)
		case "space":
			if f.Kind == tools.ElicitMulti {
				v := f.Options[e.cursor].Value
				e.picked[v] = !e.picked[v]
			}
		case "enter":
			if f.Kind == tools.ElicitChoice {
				return m.setField(f, f.Options[e.cursor].Value), true
			}
			var vs []any
			for _, o := range f.Options {
				if e.picked[o.Value] {
					vs = append(vs, o.Value)
				}
			}
			if vs == nil {
				vs = []any{}
			}
			return m.setField(f, vs), true
		}
		return nil, true
	}
	if k != "enter" {
		return nil, false
	}
	s := strings.TrimSpace(m.input.Value())
	if s == "" {
		return m.skipField(f), true
	}
	var v any = s
	if f.Kind == tools.ElicitNumber || f.Kind == tools.ElicitInteger {
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			m.errorNote(fmt.Sprintf("%s: %q is not a number", f.Label(), s))
			return nil, true
		}
		v = n
	}
	return m.setField(f, v), true
}

// setField records v for f when the field takes it, and moves on.
func (m *model) setField(f *tools.ElicitField, v any) tea.Cmd {
	if err := f.CheckValue(v); err != nil {
		m.errorNote(fmt.Sprintf("%s: %v", f.Label(), err))
		return nil
	}
	m.elicit.values[f.Name] = v
	m.note(fmt.Sprintf("%s: %v", f.Label(), v))
	m.elicit.field++
	m.enterField()
	return nil
}

// skipField leaves an optional field out; a required one stays asked.
func (m *model) skipField(f *tools.ElicitField) tea.Cmd {
	if f.Required {
		m.errorNote(f.Label() + " is required")
		return nil
	}
	delete(m.elicit.values, f.Name)
	m.elicit.field++
	m.enterField()
	return nil
}

// answerElicit sends the answer and leaves the question.
func (m *model) answerElicit(d agent.Decision) tea.Cmd {
	a := m.elicit.a
	m.elicit = nil
	m.approvals = m.approvals[1:]
	m.input.Reset()
	m.resetInputPlaceholder()
	m.ensureElicit()
	return m.decide(a, d)
}

// elicitPrompt is the line above the input while a question is shown.
func (m *model) elicitPrompt() string {
	e := m.elicit
	head := m.th.warn.Render("? " + oneLine(e.a.Server) + " asks: " + truncate(oneLine(e.message), max(m.width-20, 20)))
	keys := "esc cancel · ctrl+d decline"
	switch {
	case e.form == nil && e.url == "":
		return head + "\n" + m.th.dim.Render(keys)
	case e.url != "":
		return head + "\n" + oneLine(e.url) + "\n" + m.th.dim.Render("enter/y done (you opened it) · n decline · "+keys)
	case e.field >= len(e.form.Fields):
		return head + "\n" + m.th.dim.Render("enter send · "+keys)
	}
	f := &e.form.Fields[e.field]
	label := fmt.Sprintf("[%d/%d] %s", e.field+1, len(e.form.Fields), f.Label())
	if f.Required {
		label += " *"
	}
	if f.Description != "" {
		label += " — " + oneLine(f.Description)
	}
	var b strings.Builder
	b.WriteString(head + "\n" + truncate(label, max(m.width-2, 20)) + "\n")
	switch f.Kind {
	case tools.ElicitBoolean:
		def := ""
		if f.Default != nil {
			def = fmt.Sprintf(" (enter: %v)", f.Default)
		}
		b.WriteString(m.th.dim.Render("y yes · n no" + def + " · " + keys))
	case tools.ElicitChoice, tools.ElicitMulti:
		for i, o := range f.Options {
			mark := "  "
			if i == e.cursor {
				mark = "> "
			}
			if f.Kind == tools.ElicitMulti {
				box := "[ ] "
				if e.picked[o.Value] {
					box = "[x] "
				}
				mark += box
			}
			b.WriteString(mark + oneLine(o.Label) + "\n")
		}
		how := "↑↓ move · enter choose"
		if f.Kind == tools.ElicitMulti {
			how = "↑↓ move · space pick · enter done"
		}
		b.WriteString(m.th.dim.Render(how + " · " + keys))
	default:
		b.WriteString(m.th.dim.Render("enter next · " + keys))
	}
	return b.String()
}
