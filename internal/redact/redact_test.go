package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pw@example.com/mcp", "https://user:REDACTED@example.com/mcp"},
		{"https://ghp_abc123@github.com/x", "https://REDACTED@github.com/x"},
		{"https://api.example.com/v1?api_key=sk-1&limit=3", "https://api.example.com/v1?api_key=REDACTED&limit=3"},
		{"https://api.example.com/v1?token=sk-1", "https://api.example.com/v1?token=REDACTED"},
		{"postgres://sb:hunter2@db:5432/sb?sslmode=disable", "postgres://sb:REDACTED@db:5432/sb?sslmode=disable"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{
		"-y", "@acme/server", "--api-key", "sk-live-1", "--token=tok-2", "-password", "pw3", "--port", "8080",
		"--db", "postgres://u:pw4@h/db", "--client-secret=s5", "--verbose",
	}
	want := []string{
		"-y", "@acme/server", "--api-key", "REDACTED", "--token=REDACTED", "-password", "REDACTED", "--port", "8080",
		"--db", "postgres://u:REDACTED@h/db", "--client-secret=REDACTED", "--verbose",
	}
	if diff := cmp.Diff(want, Args(in)); diff != "" {
		t.Errorf("Args mismatch (-want +got):\n%s", diff)
	}
	if in[3] != "sk-live-1" {
		t.Error("Args changed its input")
	}
}

func TestText(t *testing.T) {
	in := `connecting to "https://me:pw9@mcp.example.com/mcp": dial tcp: refused; see https://docs.example.com/x.`
	got := Text(in)
	if strings.Contains(got, "pw9") || !strings.Contains(got, "https://me:REDACTED@mcp.example.com/mcp") || !strings.HasSuffix(got, "https://docs.example.com/x.") {
		t.Errorf("Text = %q", got)
	}
}

func TestHeader(t *testing.T) {
	for name, want := range map[string]string{"Authorization": Mask, "X-Api-Key": Mask, "Cookie": Mask, "Accept": "v", "X-Trace": "v"} {
		if got := Header(name, "v"); got != want {
			t.Errorf("Header(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add("https://a:b@c/d?token=x")
	f.Fuzz(func(t *testing.T, s string) {
		_ = Text(s)
		_ = URL(s)
	})
}

// TestSecretsAdd: values added while in use are hidden from then on, old
// ones stay hidden, and a secret containing another goes whole.
func TestSecretsAdd(t *testing.T) {
	s := NewSecrets("first-secret")
	if got := s.Text("token=second-secret-long"); got != "token=second-secret-long" {
		t.Fatalf("an unknown value was hidden: %q", got)
	}
	s.Add("second-secret", "second-secret-long", "ab")
	for in, want := range map[string]string{
		"a first-secret":           "a " + Mask,
		"t second-secret-long":     "t " + Mask,
		"t second-secret here":     "t " + Mask + " here",
		"ab is too short to count": "ab is too short to count",
	} {
		if got := s.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	var nilSecrets *Secrets
	if got := nilSecrets.Text("plain"); got != "plain" {
		t.Errorf("nil Secrets: %q", got)
	}
}
