package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// The client starts an mcphost Pool per run; every goroutine must be gone
// once it returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRunRejectsBadInvocations(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"no url", nil, map[string]string{envScenario: "initialize"}, "missing server url"},
		{"no scenario", []string{"http://127.0.0.1:1/mcp"}, nil, envScenario + " is not set"},
		{"unknown scenario", []string{"http://127.0.0.1:1/mcp"}, map[string]string{envScenario: "nope"}, `unknown scenario "nope"`},
		{"bad context", []string{"http://127.0.0.1:1/mcp"}, map[string]string{envScenario: "auth/pre-registration", envContext: "{"}, "decoding $" + envContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(t.Context(), tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLookupScenario(t *testing.T) {
	tests := []struct {
		name      string
		wantTool  string
		wantAuth  bool
		wantCC    bool
		wantSteps bool
	}{
		{"initialize", "", false, false, false},
		{"tools_call", "add_numbers", false, false, false},
		{"elicitation-sep1034-client-defaults", "test_client_elicitation_defaults", false, false, false},
		{"sse-retry", "test_reconnection", false, false, false},
		{"auth/metadata-default", "test-tool", true, false, false},
		{"auth/client-credentials-basic", "test-tool", true, true, false},
		{"request-metadata", "", false, false, false},
		{"json-schema-ref-no-deref", "", false, false, false},
		{"json-schema-2020-12-preservation", "", false, false, true},
		{"sep-2322-client-request-state", "", false, false, true},
		{"http-standard-headers", "", false, false, true},
		{"http-custom-headers", "", false, false, true},
		{"http-invalid-tool-headers", "", false, false, true},
	}
	for _, tt := range tests {
		sc, err := lookupScenario(tt.name)
		if err != nil {
			t.Fatalf("lookupScenario(%q): %v", tt.name, err)
		}
		type got struct {
			Tool     string
			Auth, CC bool
			Steps    bool
		}
		if diff := cmp.Diff(got{tt.wantTool, tt.wantAuth, tt.wantCC, tt.wantSteps}, got{sc.tool, sc.auth, sc.clientCredentials, sc.steps != nil}); diff != "" {
			t.Errorf("lookupScenario(%q) mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseContext(t *testing.T) {
	c, err := parseContext(`{"name":"auth/pre-registration","client_id":"id1","client_secret":"s1","extra":1,` +
		`"toolCalls":[{"name":"t","arguments":{"region":"us-west1"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &confContext{
		Name: "auth/pre-registration", ClientID: "id1", ClientSecret: "s1",
		ToolCalls: []contextCall{{Name: "t", Arguments: []byte(`{"region":"us-west1"}`)}},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("parseContext mismatch (-want +got):\n%s", diff)
	}
}

func TestFollowAuthorization(t *testing.T) {
	tests := []struct {
		name     string
		location string
		want     string
		wantErr  string
	}{
		{"granted", "http://localhost:3000/callback?code=c1&state=s1", "http://localhost:3000/callback?code=c1&state=s1", ""},
		{"denied is passed on", "http://localhost:3000/callback?error=access_denied", "http://localhost:3000/callback?error=access_denied", ""},
		{"relative redirect", "/callback?code=c2", "/callback?code=c2", ""},
		{"no redirect", "", "", "without a usable redirect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.location == "" {
					w.WriteHeader(http.StatusOK)
					return
				}
				w.Header().Set("Location", tt.location)
				w.WriteHeader(http.StatusFound)
			}))
			defer srv.Close()
			got, err := followAuthorization(context.Background(), srv.URL+"/authorize?x=1")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if strings.HasPrefix(want, "/") {
				want = srv.URL + want
			}
			if got != want {
				t.Errorf("callback = %q, want %q", got, want)
			}
		})
	}
}

// FuzzParseContext: whatever the suite (or anyone) puts in
// MCP_CONFORMANCE_CONTEXT, parsing returns a context or an error, never panics.
func FuzzParseContext(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"name":"auth/pre-registration","client_id":"a","client_secret":"b"}`,
		`{"client_id":1}`, `[]`, `null`, `{"toolCalls":[{"name":"x","arguments":{}}]}`, "{\"client_id\":\"\xff\"}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseContext(s)
		if err == nil && c == nil {
			t.Fatalf("parseContext(%q) returned neither a context nor an error", s)
		}
		if err != nil && !strings.Contains(err.Error(), envContext) {
			t.Fatalf("parseContext(%q) error %q does not name %s", s, err, envContext)
		}
	})
}
