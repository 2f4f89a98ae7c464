package sqlite_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// FuzzMessageRoundTrip checks that whatever a model or tool produces (text,
// malformed argument JSON, image bytes) is stored and read back unchanged.
func FuzzMessageRoundTrip(f *testing.F) {
	f.Add("hello", `{"a":1}`, []byte{0x89, 'P', 'N', 'G'})
	f.Add("", ``, []byte(nil))
	f.Add("quote \" and \\ and \u2028", `{"unterminated": "`, []byte{0, 0xff})
	f.Add("nul \x00 byte", "not json at all \x00", []byte("x"))
	f.Add("\xff\xfe invalid utf-8", `[1,2,3]`, []byte{})
	db, err := sqlite.Open(f.Context(), filepath.Join(f.TempDir(), "fuzz.db"), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	c, err := db.CreateConversation(f.Context(), store.Conversation{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, args string, image []byte) {
		in := llm.Message{
			Role:      llm.RoleAssistant,
			Content:   []llm.Part{llm.TextPart(text), llm.ImagePart("image/png", image)},
			ToolCalls: []llm.ToolCall{{ID: "c", Name: "t", Arguments: json.RawMessage(args)}},
		}
		got, err := db.AppendMessages(t.Context(), c.ID, store.Message{Message: in})
		if err != nil {
			t.Fatalf("AppendMessages: %v", err)
		}
		msgs, err := db.ListMessages(t.Context(), c.ID, store.MessageFilter{AfterSeq: got[0].Seq - 1, Limit: 1})
		if err != nil || len(msgs) != 1 {
			t.Fatalf("ListMessages: %d messages, %v", len(msgs), err)
		}
		want := in
		// JSON keeps text as UTF-8: invalid bytes become U+FFFD, as they
		// would on the way to any provider. Empty byte slices read back nil.
		want.Content = []llm.Part{llm.TextPart(validUTF8(text)), llm.ImagePart("image/png", image)}
		if len(image) == 0 {
			want.Content[1].Data = nil
		}
		if args == "" {
			want.ToolCalls[0].Arguments = nil
		}
		if !utf8.ValidString(args) {
			want.ToolCalls[0].Arguments = json.RawMessage(validUTF8(args))
		}
		if d := cmp.Diff(want, msgs[0].Message); d != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", d)
		}
	})
}

func validUTF8(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// FuzzCursor checks that any cursor string is either accepted or refused
// with ErrInvalid, never a panic or another error.
func FuzzCursor(f *testing.F) {
	for _, s := range []string{"", "_", "1_", "_x", "123_abc", "-1_x", "99999999999999999999_x", "1_2_3", "abc"} {
		f.Add(s)
	}
	db, err := sqlite.Open(f.Context(), filepath.Join(f.TempDir(), "fuzz.db"), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	f.Fuzz(func(t *testing.T, cursor string) {
		_, _, err := db.ListConversations(t.Context(), store.ConversationFilter{Cursor: cursor})
		if err != nil && !errors.Is(err, store.ErrInvalid) {
			t.Errorf("ListConversations(cursor %q): %v, want nil or ErrInvalid", cursor, err)
		}
	})
}
