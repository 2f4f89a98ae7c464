package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// exportConversation serves one conversation as a file to keep:
// ?format=md (the default) as Markdown a person reads, ?format=json as
// the same record GET /api/v1/conversations/{id} returns. Both are sent
// as attachments named after the conversation's id (never its title,
// which a person wrote and which must not reach a header).
func (s *Server) exportConversation() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		format := r.URL.Query().Get("format")
		if format == "" {
			format = "md"
		}
		if format != "md" && format != "json" {
			return badRequest("format %q is not md or json", format)
		}
		c, err := s.conversation(r.Context(), mustUser(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		msgs, err := s.store.Conversations.ListMessages(r.Context(), c.ID, store.MessageFilter{})
		if err != nil {
			return err
		}
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="conversation-%s.%s"`, safeName(c.ID), format))
		if format == "json" {
			out := toConversation(c)
			out.Messages = mapSlice(msgs, toMessage)
			writeJSON(w, http.StatusOK, out)
			return nil
		}
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, err = w.Write([]byte(markdown(c, msgs)))
		return err
	}
}

// safeName keeps the letters, digits, '-' and '_' of id.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, id)
}

// markdown renders a conversation: a heading per message, tool calls and
// results in fenced blocks whose fences are longer than any backtick run
// inside, so stored text cannot close them early.
func markdown(c store.Conversation, msgs []store.Message) string {
	var b strings.Builder
	title := c.Title
	if title == "" {
		title = "Untitled conversation"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	fmt.Fprintf(&b, "- Conversation: %s\n- Created: %s\n", c.ID, c.CreatedAt.UTC().Format(time.RFC3339))
	if c.Agent != "" {
		fmt.Fprintf(&b, "- Agent: @%s\n", c.Agent)
	}
	for _, m := range msgs {
		switch {
		case m.SummaryOf > 0:
			fmt.Fprintf(&b, "\n## Summary of messages 1–%d (written by the model)\n\n", m.SummaryOf)
		case m.Role == llm.RoleUser:
			b.WriteString("\n## User\n\n")
		case m.Role == llm.RoleAssistant:
			who := "Assistant"
			if m.Agent != "" {
				who = "@" + m.Agent
			}
			fmt.Fprintf(&b, "\n## %s\n\n", who)
		case m.Role == llm.RoleTool:
			state := "result"
			if m.IsError {
				state = "error"
			}
			fmt.Fprintf(&b, "\n**Tool %s** `%s` (call %s):\n\n", state, oneLine(m.ToolName), oneLine(m.ToolCallID))
			fenced(&b, "", m.Text())
			images(&b, m.Content)
			continue
		default:
			fmt.Fprintf(&b, "\n## %s\n\n", m.Role)
		}
		if t := m.Text(); t != "" {
			b.WriteString(t)
			b.WriteString("\n")
		}
		images(&b, m.Content)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "\n**Tool call** `%s` (call %s):\n\n", oneLine(tc.Name), oneLine(tc.ID))
			args := string(tc.Arguments)
			var v any
			if json.Unmarshal(tc.Arguments, &v) == nil {
				if p, err := json.MarshalIndent(v, "", "  "); err == nil {
					args = string(p)
				}
			}
			fenced(&b, "json", args)
		}
	}
	return b.String()
}

// images notes the images of content; their bytes are in the JSON export.
func images(b *strings.Builder, content []llm.Part) {
	for _, p := range content {
		if p.Type == llm.PartImage {
			fmt.Fprintf(b, "\n*[image: %s, %d bytes]*\n", oneLine(p.MIMEType), len(p.Data))
		}
	}
}

// fenced writes text in a code fence longer than its longest backtick run.
func fenced(b *strings.Builder, lang, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n", fence, lang, strings.TrimRight(text, "\n"), fence)
}

// oneLine keeps a label on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
