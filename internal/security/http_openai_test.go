package security

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// openAIResult is what testdata/npm/interop/openai-chat.mjs prints.
type openAIResult struct {
	Content string `json:"content"`
	Status  int    `json:"status"`
	Error   string `json:"error"`
}

// openAIChat runs one chat completion through the official OpenAI npm client.
func openAIChat(t *testing.T, base, key, mode, message string) openAIResult {
	t.Helper()
	root, node := npmRoot(t, "openai")
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(root, "interop", "openai-chat.mjs"), base+"/v1", key, mode, message)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openai client (%s): %v\n%s", mode, err, out)
	}
	var r openAIResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("openai client printed %q: %v", out, err)
	}
	return r
}

// TestHTTPOpenAIClientInterop: the official OpenAI npm client, which always
// sends "Authorization: Bearer <key>", works against a real serve. In
// anonymous mode any made-up key works, streaming and not; once users
// exist a made-up sb_ key gets 401 and a real key works.
func TestHTTPOpenAIClientInterop(t *testing.T) {
	npmRoot(t, "openai")
	model := newFakeModel(t, nil)
	dir := project(t, modelConfig(model.URL))
	s := serve(t, dir)
	for _, mode := range []string{"once", "stream"} {
		if r := openAIChat(t, s.base, "sk-made-up", mode, "hello "+mode); r.Content != "You said: hello "+mode {
			t.Errorf("anonymous, made-up key, %s: %+v; want the model's answer", mode, r)
		}
	}
	if r := openAIChat(t, s.base, "sb_madeup", "once", "hi"); r.Status != 401 {
		t.Errorf("anonymous, unknown sb_ key: %+v; want 401", r)
	}

	key := addUser(t, dir, "bob", "--allow", "calculator")
	for _, mode := range []string{"once", "stream"} {
		if r := openAIChat(t, s.base, "sb_madeup", mode, "hi"); r.Status != 401 {
			t.Errorf("with users, made-up sb_ key, %s: %+v; want 401", mode, r)
		}
		if r := openAIChat(t, s.base, "sk-made-up", mode, "hi"); r.Status != 401 {
			t.Errorf("with users, made-up non-sb_ key, %s: %+v; want 401", mode, r)
		}
		if r := openAIChat(t, s.base, key, mode, "real "+mode); r.Content != "You said: real "+mode {
			t.Errorf("with users, real key, %s: %+v; want the model's answer", mode, r)
		}
	}
}
