package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestExportConversation checks both export formats of a conversation
// with an image, a tool call and a result that tries to close its fence,
// and that nobody else can export it.
func TestExportConversation(t *testing.T) {
	e := newEnv(t, nil)
	conv := e.createConversation(t)
	call := llm.ToolCall{ID: "c1", Name: "files__echo", Arguments: json.RawMessage(`{"x":1}`)}
	user := llm.UserText("look at this")
	user.Content = append(user.Content, llm.ImagePart("image/png", pngBytes))
	_, err := e.db.AppendMessages(context.Background(), conv,
		store.Message{Message: user},
		store.Message{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}},
		store.Message{Message: llm.ToolResult(call, "```\n# injected heading\n```", false)},
		store.Message{Message: llm.AssistantText("It says hello."), Agent: "bob"},
	)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/conversations/" + conv + "/export"

	resp := e.send(t, http.MethodGet, path, e.key, nil, nil)
	md := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Fatalf("markdown export: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="conversation-`+conv+`.md"`; got != want {
		t.Errorf("Content-Disposition = %q, want %q", got, want)
	}
	for _, want := range []string{
		"# t\n", "## User\n\nlook at this\n", "*[image: image/png, 16 bytes]*",
		"**Tool call** `files__echo` (call c1):\n\n```json\n{\n  \"x\": 1\n}\n```",
		"**Tool result** `files__echo` (call c1):\n\n````\n```\n# injected heading\n```\n````",
		"## @bob\n\nIt says hello.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	resp = e.send(t, http.MethodGet, path+"?format=json", e.key, nil, nil)
	got := decode[conversationJSON](t, []byte(readAll(t, resp)))
	if resp.StatusCode != http.StatusOK || len(got.Messages) != 4 || got.Messages[0].Content[1].MIMEType != "image/png" {
		t.Errorf("json export: %d %+v", resp.StatusCode, got)
	}

	if code, b := e.do(t, http.MethodGet, path+"?format=pdf", e.key, nil); code != http.StatusBadRequest {
		t.Errorf("format pdf: %d %s, want 400", code, b)
	}
	mallory := e.addUser(t, "mallory", store.RoleUser, "*")
	if code, b := e.do(t, http.MethodGet, path, mallory, nil); code != http.StatusNotFound {
		t.Errorf("another user's export: %d %s, want 404", code, b)
	}
	if code, _ := e.do(t, http.MethodGet, path, "", nil); code != http.StatusUnauthorized {
		t.Errorf("export without a key: %d, want 401", code)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}
