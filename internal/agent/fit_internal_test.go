package agent

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// TestFitContextTrimsToolResultsFirst checks that old tool results are
// shortened before any turn is left out, that the current turn's results
// are never shortened, and that the note says what happened.
func TestFitContextTrimsToolResultsFirst(t *testing.T) {
	call := llm.ToolCall{ID: "1", Name: "read", Arguments: []byte("{}")}
	big := strings.Repeat("é", 2000) // 4000 bytes, multi-byte runes
	small := strings.Repeat("x", 100)
	msgs := []llm.Message{
		llm.UserText("read it"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		{Role: llm.RoleTool, ToolCallID: "1", ToolName: "read", Content: []llm.Part{llm.TextPart(big), llm.ImagePart("image/png", make([]byte, 3000))}},
		llm.AssistantText("done"),
		llm.UserText("and again"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		llm.ToolResult(call, small, false),
	}
	tests := []struct {
		name                 string
		window               int
		wantTrimmed, wantOut int
	}{
		{"fits", 100000, 0, 7},
		// Budget 3000 chars: shortening the old result (7000) is enough.
		{"trim only", 2000, 1, 7},
		// Budget 600: even trimmed, the first turn must go.
		{"trim, then drop", 400, 1, 3},
		{"no window", 0, 0, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fitContext(msgs, tc.window)
			if f.trimmed != tc.wantTrimmed || len(f.msgs) != tc.wantOut || f.dropped != len(msgs)-tc.wantOut {
				t.Fatalf("fitContext(%d) = %d messages, trimmed %d, dropped %d; want %d, %d, %d",
					tc.window, len(f.msgs), f.trimmed, f.dropped, tc.wantOut, tc.wantTrimmed, len(msgs)-tc.wantOut)
			}
			if last := f.msgs[len(f.msgs)-1]; last.Text() != small {
				t.Errorf("the current turn's result was changed")
			}
			if got := msgs[2].Text(); got != big {
				t.Errorf("fitContext modified its input")
			}
			note := f.note()
			if (tc.wantTrimmed == 0 && f.dropped == 0) != (note == "") {
				t.Errorf("note = %q for trimmed %d, dropped %d", note, f.trimmed, f.dropped)
			}
			if tc.name == "trim only" {
				short := f.msgs[2]
				if len(short.Content) != 1 || !strings.Contains(short.Text(), "trimmed to fit the context window") || !strings.HasPrefix(short.Text(), strings.Repeat("é", 300)) {
					t.Errorf("trimmed result = %.80q…", short.Text())
				}
				if !strings.Contains(note, "1 older tool result(s) were shortened") || strings.Contains(note, "left out") {
					t.Errorf("note = %q", note)
				}
			}
		})
	}
}
