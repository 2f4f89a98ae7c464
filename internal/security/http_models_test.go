package security

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// openAIChatModel is openAIChat asking for model.
func openAIChatModel(t *testing.T, base, key, model, message string) openAIResult {
	t.Helper()
	root, node := npmRoot(t, "openai")
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(root, "interop", "openai-chat.mjs"), base+"/v1", key, "once", message, model)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openai client (model %s): %v\n%s", model, err, out)
	}
	var r openAIResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("openai client printed %q: %v", out, err)
	}
	return r
}

// postTurn posts a message with model to a conversation, as the web UI
// does, and returns the status and body (the run's event stream on 200).
func (s *served) postTurn(t *testing.T, key, conv, model, message string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"message": %q, "model": %q}`, message, model)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/api/v1/conversations/"+conv+"/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHTTPModelPermissions: a user whose permissions name models
// ("model:small") may use only those. Asking for another configured model
// is refused on both surfaces that let a caller choose one, a
// conversation message (REST) and /v1/chat/completions (through the
// official OpenAI npm client), before any model is asked; /v1/models lists
// only the user's models; a model nobody configured is not found; a user
// whose permissions name no model keeps every model.
func TestHTTPModelPermissions(t *testing.T) {
	npmRoot(t, "openai")
	small, big := newFakeModel(t, nil), newFakeModel(t, nil)
	cfg := fmt.Sprintf("defaultModel: small\nmodels:\n"+
		"  small: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n"+
		"  big: {provider: openai, baseURL: %q, model: fake, toolMode: native}\n", small.URL+"/v1", big.URL+"/v1")
	dir := project(t, cfg)
	bob := addUser(t, dir, "bob", "--allow", "calculator", "--allow", "model:small")
	carol := addUser(t, dir, "carol", "--allow", "calculator")
	s := serve(t, dir)

	code, out := s.call(t, http.MethodGet, "/v1/models", bob, nil)
	if code != http.StatusOK || !strings.Contains(out, `"small"`) || strings.Contains(out, `"big"`) {
		t.Errorf("bob's /v1/models: %d %s; want small only", code, out)
	}
	code, out = s.call(t, http.MethodGet, "/v1/models", carol, nil)
	if code != http.StatusOK || !strings.Contains(out, `"small"`) || !strings.Contains(out, `"big"`) {
		t.Errorf("carol's /v1/models: %d %s; want both models", code, out)
	}

	code, out = s.call(t, http.MethodPost, "/api/v1/conversations", bob, map[string]string{"title": "t"})
	if code != http.StatusCreated {
		t.Fatalf("creating a conversation: %d %s", code, out)
	}
	var conv struct{ ID string }
	if err := json.Unmarshal([]byte(out), &conv); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who, key, model string
		status          int
		code            string
	}{
		{"bob", bob, "big", http.StatusForbidden, "model_forbidden"},
		{"bob", bob, "nosuch", http.StatusNotFound, "model_not_found"},
		{"bob", bob, "BIG", http.StatusNotFound, "model_not_found"},
	} {
		code, out := s.postTurn(t, tc.key, conv.ID, tc.model, "hi")
		if code != tc.status || !strings.Contains(out, tc.code) {
			t.Errorf("%s posting with model %q: %d %s; want %d %s", tc.who, tc.model, code, out, tc.status, tc.code)
		}
	}
	if r := openAIChatModel(t, s.base, bob, "big", "hi"); r.Status != http.StatusForbidden {
		t.Errorf("bob's chat completion with model big: %+v; want 403", r)
	}
	if len(big.arrived) != 0 {
		t.Errorf("the refused requests reached model big %d times", len(big.arrived))
	}

	// The allowed model works on both surfaces, and carol may use big.
	if code, out := s.postTurn(t, bob, conv.ID, "small", "hello"); code != http.StatusOK || !strings.Contains(out, "You said: hello") {
		t.Errorf("bob posting with model small: %d %s", code, out)
	}
	if r := openAIChatModel(t, s.base, bob, "small", "hi small"); r.Content != "You said: hi small" {
		t.Errorf("bob's chat completion with model small: %+v", r)
	}
	if r := openAIChatModel(t, s.base, carol, "big", "hi big"); r.Content != "You said: hi big" {
		t.Errorf("carol's chat completion with model big: %+v", r)
	}
	if len(big.arrived) != 1 {
		t.Errorf("model big was asked %d times; want once (carol's)", len(big.arrived))
	}
}
