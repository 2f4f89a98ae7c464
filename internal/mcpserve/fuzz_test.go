package mcpserve

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// FuzzHostOrigin feeds arbitrary Host and Origin headers to the DNS
// rebinding checks: they must not panic, and a Host that is refused on
// loopback must not be a loopback name.
func FuzzHostOrigin(f *testing.F) {
	for _, seed := range [][2]string{
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"[::1]:80", ""},
		{"localhost", "null"},
		{"evil.example.com", "http://evil.example.com"},
		{"[::1", "http://[::1"},
		{"", "://"},
		{"mcp.example.com:443", "https://MCP.example.com:443/"},
		{"127.0.0.1:99999", "\x00"},
	} {
		f.Add(seed[0], seed[1])
	}
	s := &Server{opts: Options{AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"http://localhost:3000"}}}
	f.Fuzz(func(t *testing.T, host, origin string) {
		r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if msg := s.checkHost(r); msg == "" && !s.hostTrusted(host) {
			// httptest requests carry no local address, so only trusted
			// hosts or an empty AllowedHosts pass; ours is not empty.
			t.Errorf("Host %q accepted without being trusted", host)
		}
		if isLoopback(host) && s.checkHost(r) != "" {
			t.Errorf("loopback Host %q refused", host)
		}
		_ = s.checkOrigin(r)
	})
}

// FuzzObjectSchema checks that any input schema is either accepted as an
// object schema or refused with an error, never a panic.
func FuzzObjectSchema(f *testing.F) {
	for _, seed := range []string{``, `{"type":"object"}`, `{"type":"string"}`, `[]`, `null`, `{"type":["object"]}`, `{`, `{"type":"object","x-mcp-header":1}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := objectSchema(json.RawMessage(raw))
		if err == nil && !json.Valid(got) {
			t.Errorf("accepted schema %q is not valid JSON", got)
		}
	})
}

// FuzzShownArguments checks that the arguments quoted in an approval
// question stay bounded and valid UTF-8 whatever the client sent.
func FuzzShownArguments(f *testing.F) {
	for _, seed := range []string{``, `null`, `{"a":1}`, `{"a":"` + strings.Repeat("é", 3000) + `"}`, `not json`, "\xff\xfe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got := shownArguments(json.RawMessage(args))
		if len(got) > maxShownArguments+64 {
			t.Errorf("shown arguments are %d bytes, want at most about %d", len(got), maxShownArguments)
		}
		if utf8.ValidString(args) && !utf8.ValidString(got) {
			t.Errorf("shown arguments of valid UTF-8 input are not valid UTF-8: %q", got)
		}
	})
}

// TestQuestion checks the approval question for each kind of tool.
func TestQuestion(t *testing.T) {
	tests := []struct {
		name string
		e    tools.Entry
		args string
		want string
	}{
		{
			name: "built-in read-only",
			e:    tools.Entry{Name: "calculator", Origin: tools.Origin{Kind: tools.KindBuiltin, Name: "calculator"}, Info: tools.Info{Annotations: &tools.Annotations{ReadOnlyHint: true}}},
			args: `{"expr":"1+1"}`,
			want: "Allow Switchboard to call the tool calculator (built-in tool \"calculator\")?\nArguments:\n{\n  \"expr\": \"1+1\"\n}",
		},
		{
			name: "openapi destructive without arguments",
			e:    tools.Entry{Name: "mail__send", Origin: tools.Origin{Kind: tools.KindOpenAPI, Server: "mail", Name: "send"}},
			want: "Allow Switchboard to call the tool mail__send (tool \"send\" of openapi server \"mail\")? It may change or delete data.\nArguments:\n{}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, question(tt.e, json.RawMessage(tt.args))); diff != "" {
				t.Errorf("question mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
