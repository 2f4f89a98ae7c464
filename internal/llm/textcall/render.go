package textcall

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// resultStop is the stop sequence added in text mode, and maxStops the
// fewest stop sequences any supported API accepts (OpenAI: 4).
const (
	resultStop = "<tool_result"
	maxStops   = 4
)

// Bounds for the text the manifest is ranked against.
const (
	contextMessages = 4
	maxQueryBytes   = 4000
)

// textRequest returns req rewritten for the text protocol: no tools, the
// manifest appended to the system prompt, earlier calls and results as
// text. req itself is not modified.
func (w *Provider) textRequest(ctx context.Context, req *llm.Request, cat *Catalog) *llm.Request {
	out := *req
	out.Tools = nil
	out.ToolChoice = llm.ToolChoice{}
	out.Messages = renderHistory(req.Messages)
	if len(req.Tools) == 0 || req.ToolChoice.Mode == llm.ToolChoiceNone {
		return &out
	}
	// Small models often go on to invent the tool's result; stopping at
	// the result tag ends the turn where the real result must come in.
	// Some APIs take at most four stop sequences, so never crowd out the
	// caller's.
	if len(req.Stop) < maxStops && !slices.Contains(req.Stop, resultStop) {
		out.Stop = append(slices.Clip(req.Stop), resultStop)
	}
	q := rankQuery(req.Messages)
	if req.ToolChoice.Mode == llm.ToolChoiceTool {
		// Naming the forced tool ranks it first, so it is described.
		q.Text = req.ToolChoice.Name + "\n" + q.Text
	}
	m := cat.Manifest(ManifestOptions{Budget: w.opts.Budget, MaxTools: w.opts.MaxTools, Pinned: w.opts.Pinned, Query: q})
	w.logger.DebugContext(ctx, "text tool manifest", logKeyModel, req.Model, logKeyShown, len(m.Shown),
		logKeyListed, len(m.Listed), logKeyOmitted, m.Omitted, logKeyTokens, EstimateTokens(m.Text))
	section := m.Text
	switch req.ToolChoice.Mode {
	case llm.ToolChoiceRequired:
		section += "In this reply you must call at least one tool.\n"
	case llm.ToolChoiceTool:
		section += "In this reply you must call the tool " + req.ToolChoice.Name + ".\n"
	}
	if out.System != "" {
		out.System += "\n\n"
	}
	out.System += section
	return &out
}

// renderHistory writes tool calls and results as text. An assistant
// message's calls become <tool_code> blocks after its text; consecutive tool
// results become one user message of <tool_result> blocks.
func renderHistory(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	results := -1 // index in out of the message holding the latest results
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0:
			var b strings.Builder
			b.WriteString(m.Text())
			for _, c := range m.ToolCalls {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				writeCall(&b, c)
			}
			content := []llm.Part{llm.TextPart(b.String())}
			for _, p := range m.Content {
				if p.Type != llm.PartText {
					content = append(content, p)
				}
			}
			out = append(out, llm.Message{Role: llm.RoleAssistant, Content: content})
		case m.Role == llm.RoleTool:
			var b strings.Builder
			writeResult(&b, m)
			var extra []llm.Part
			for _, p := range m.Content {
				if p.Type != llm.PartText {
					extra = append(extra, p)
				}
			}
			if results >= 0 && results == len(out)-1 {
				prev := &out[results]
				prev.Content[0].Text += "\n" + b.String()
				prev.Content = append(prev.Content, extra...)
				continue
			}
			results = len(out)
			out = append(out, llm.Message{Role: llm.RoleUser, Content: append([]llm.Part{llm.TextPart(b.String())}, extra...)})
		default:
			out = append(out, m)
		}
	}
	return out
}

// writeCall writes c as the block the manifest asks the model to write.
func writeCall(b *strings.Builder, c llm.ToolCall) {
	args := c.Arguments
	if len(bytes.TrimSpace(args)) == 0 || !json.Valid(args) {
		args = json.RawMessage("{}")
	}
	name, _ := json.Marshal(c.Name)
	b.WriteString(`<tool_code>{"tool_name": `)
	b.Write(name)
	b.WriteString(`, "arguments": `)
	b.Write(args)
	b.WriteString("}</tool_code>")
}

// writeResult writes a tool message as a <tool_result> block. A closing tag
// inside the result is defused so the block cannot end early.
func writeResult(b *strings.Builder, m llm.Message) {
	name, _ := json.Marshal(m.ToolName)
	b.WriteString("<tool_result name=")
	b.Write(name)
	if m.IsError {
		b.WriteString(` error="true"`)
	}
	b.WriteString(">\n")
	b.WriteString(strings.ReplaceAll(m.Text(), "</tool_result>", "<\\/tool_result>"))
	b.WriteString("\n</tool_result>")
}

// rankQuery returns what the manifest's tools are ranked against: the
// latest user message, the text of the few messages before it (most recent
// first) and every tool called so far in the conversation.
func rankQuery(msgs []llm.Message) Query {
	var q Query
	seen := make(map[string]bool)
	for i := range msgs {
		for _, c := range msgs[i].ToolCalls {
			if !seen[c.Name] {
				seen[c.Name] = true
				q.Used = append(q.Used, c.Name)
			}
		}
	}
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return q
	}
	q.Text = clip(msgs[last].Text(), maxQueryBytes)
	size := 0
	for i := last - 1; i >= 0 && len(q.Context) < contextMessages && size < maxQueryBytes; i-- {
		m := &msgs[i]
		if m.Role == llm.RoleSystem || m.Role == llm.RoleTool {
			continue // tool results are data, not what the user asks for
		}
		if t := strings.TrimSpace(m.Text()); t != "" {
			t = clip(t, maxQueryBytes-size)
			size += len(t)
			q.Context = append(q.Context, t)
		}
	}
	return q
}

// clip cuts s to at most n bytes, keeping the end (the most recent words).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && s[0]&0xC0 == 0x80 { // skip a cut rune's continuation bytes
		s = s[1:]
	}
	return s
}
