package oauth

import (
	"strings"
	"testing"
)

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range []Kind{KindAccess, KindRefresh, KindCode} {
		s, h := NewSecret(k)
		if !strings.HasPrefix(s, "sb_") || Hash(s) != h || len(h) != 64 {
			t.Fatalf("NewSecret(%q) = %q, %q", k, s, h)
		}
		if got, ok := KindOf(s); !ok || got != k {
			t.Errorf("KindOf(%q) = %q, %v; want %q", s, got, ok, k)
		}
		if seen[s] {
			t.Fatalf("NewSecret repeated %q", s)
		}
		seen[s] = true
	}
	// An API key ("sb_" + base64url) is never a token: base64url has no '.'.
	for _, key := range []string{"sb_at_abc", "sb_rt-xyz", "sb_acAAAA"} {
		if k, ok := KindOf(key); ok {
			t.Errorf("KindOf(%q) = %q: an API key was read as a token", key, k)
		}
	}
}

func TestCanonicalResource(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://SB.example.com/mcp/", "https://sb.example.com/mcp"},
		{"HTTPS://sb.example.com/mcp", "https://sb.example.com/mcp"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"https://sb.example.com", "https://sb.example.com"},
		{"https://sb.example.com/mcp#x", ""},
		{"https://u@sb.example.com/mcp", ""},
		{"/mcp", ""},
		{"urn:x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := CanonicalResource(tt.in)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestAudience is the attack test for audience binding: a token for
// another resource, or recorded without one, is refused.
func TestAudience(t *testing.T) {
	mcp := "https://sb.example.com/mcp"
	if !Audience(mcp, mcp) {
		t.Fatal("a token for this resource was refused")
	}
	for _, other := range []string{"https://sb.example.com/api", "https://evil.example.com/mcp", "https://sb.example.com/mcp/x", ""} {
		if Audience(other, mcp) {
			t.Errorf("a token for %q was accepted at %q", other, mcp)
		}
	}
}
