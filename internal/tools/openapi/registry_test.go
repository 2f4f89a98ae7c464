package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// TestRegistry wires two action servers into a tools.Registry the way the
// app does: one works, one cannot serve its document. The broken one is
// failed alone; the catalogue holds the other's tools under server__name,
// validates arguments against the generated schemas, and calls them.
func TestRegistry(t *testing.T) {
	mail := emailserver.New()
	good := httptest.NewServer(mail)
	defer good.Close()
	bad := httptest.NewServer(http.NotFoundHandler())
	defer bad.Close()

	reg := tools.NewRegistry(nil)
	var servers []*openapi.Server
	for name, url := range map[string]string{"email": good.URL, "broken": bad.URL} {
		servers = append(servers, openapi.New(name, &openapi.Options{
			URL: url,
			OnChange: func(s *openapi.Server) {
				reg.Set(tools.Source{Kind: tools.KindOpenAPI, Server: s.Name()}, s.Tools())
			},
		}))
	}
	for _, s := range servers {
		_ = s.Load(t.Context()) // the broken server's error is in its Status
	}

	var names []string
	for _, e := range reg.List() {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"email__read-emails", "email__send-email"}, names); diff != "" {
		t.Errorf("catalogue mismatch (-want +got):\n%s", diff)
	}
	for _, s := range servers {
		st := s.Status()
		if s.Name() == "broken" && (st.State != openapi.StateFailed || !strings.Contains(st.LastError, "404")) {
			t.Errorf("broken status = %+v", st)
		}
		if s.Name() == "email" && st.State != openapi.StateReady {
			t.Errorf("email status = %+v", st)
		}
	}

	// The registry rejects arguments the generated schema forbids...
	res, err := reg.Call(t.Context(), "email__read-emails", &tools.CallRequest{Arguments: json.RawMessage(`{"limit": "two"}`)})
	if err != nil || !res.IsError {
		t.Errorf("invalid limit: %v %+v, want a tool error", err, res)
	}
	// ...and passes valid ones through to the server.
	res, err = reg.Call(t.Context(), "email__send-email", &tools.CallRequest{Arguments: json.RawMessage(`{"to": "john@example.com", "subject": "Hi"}`)})
	if err != nil || res.IsError {
		t.Fatalf("send-email: %v %+v", err, res)
	}
	if sent := mail.Sent(); len(sent) != 1 || sent[0].To != "john@example.com" {
		t.Errorf("sent = %+v", sent)
	}
	res, err = reg.Call(t.Context(), "email__send-email", &tools.CallRequest{Arguments: json.RawMessage(`{"subject": "no recipient"}`)})
	if err != nil || !res.IsError || len(mail.Sent()) != 1 {
		t.Errorf("send-email without to: %v %+v, want a tool error and nothing sent", err, res)
	}
}
