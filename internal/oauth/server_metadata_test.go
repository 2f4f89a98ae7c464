package oauth

import (
	"encoding/json"
	"testing"
)

func TestNewServerMetadata(t *testing.T) {
	m, err := NewServerMetadata("https://sb.example.com/", []string{"mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Issuer != "https://sb.example.com" || m.TokenEndpoint != "https://sb.example.com/oauth/token" ||
		len(m.CodeChallengeMethodsSupported) != 1 || m.CodeChallengeMethodsSupported[0] != "S256" {
		t.Fatalf("metadata = %+v", m)
	}
	b, _ := json.Marshal(m)
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint", "code_challenge_methods_supported"} {
		if _, ok := back[k]; !ok {
			t.Errorf("metadata JSON lacks %q: %s", k, b)
		}
	}
	for _, bad := range []string{"http://sb.example.com", "https://sb.example.com?x=1", "https://sb.example.com#f", "sb.example.com", ""} {
		if _, err := NewServerMetadata(bad, nil); err == nil {
			t.Errorf("NewServerMetadata(%q) accepted a bad issuer", bad)
		}
	}
	if _, err := NewServerMetadata("http://127.0.0.1:8080", nil); err != nil {
		t.Errorf("loopback http issuer refused: %v", err)
	}
}

func TestServerMetadataURL(t *testing.T) {
	tests := map[string]string{
		"https://sb.example.com":        "https://sb.example.com/.well-known/oauth-authorization-server",
		"https://sb.example.com/":       "https://sb.example.com/.well-known/oauth-authorization-server",
		"https://sb.example.com/tenant": "https://sb.example.com/.well-known/oauth-authorization-server/tenant",
	}
	for in, want := range tests {
		if got, err := ServerMetadataURL(in); err != nil || got != want {
			t.Errorf("ServerMetadataURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
