package openapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestUserHeader: a per-user service sends each call with the header of
// the user the call acts for, checked at the service; the document fetch
// uses the configured bearer; a user without a credential gets the error
// as a tool error and nothing is sent.
func TestUserHeader(t *testing.T) {
	spec := `{"openapi": "3.0.0", "paths": {"/ping": {"get": {"operationId": "ping"}}}}`
	rec := &recorder{headers: []string{"Authorization"}, reply: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			_, _ = io.WriteString(w, spec)
			return
		}
		_, _ = io.WriteString(w, `{"ok": true}`)
	}}
	ts := startServer(t, rec)
	tokens := map[string]string{"alice": "alice-tok", "bob": "bob-tok"}
	s := loaded(t, &Options{URL: ts.URL, Bearer: "listing", UserHeader: func(ctx context.Context) (string, string, error) {
		tok, ok := tokens[tools.UserOf(ctx)]
		if !ok {
			return "", "", errors.New("mail needs your own credentials: connect them at /api/v1/connections/mail")
		}
		return "Authorization", "Bearer " + tok, nil
	}})
	ping := findTool(t, s, "ping")
	for _, u := range []string{"alice", "bob", "alice"} {
		callToolCtx(t, tools.WithUser(t.Context(), u), ping, `{}`)
	}
	res := callToolCtx(t, tools.WithUser(t.Context(), "carol"), ping, `{}`)
	if !res.IsError || !strings.Contains(res.Text(), "/api/v1/connections/mail") {
		t.Errorf("carol's call: %q, want the error saying where to connect", res.Text())
	}
	var got []string
	for _, r := range rec.take() {
		got = append(got, r.URI+" "+r.Headers["Authorization"])
	}
	want := "/openapi.json Bearer listing,/ping Bearer alice-tok,/ping Bearer bob-tok,/ping Bearer alice-tok"
	if strings.Join(got, ",") != want {
		t.Errorf("the service got %q, want %q", strings.Join(got, ","), want)
	}
}
