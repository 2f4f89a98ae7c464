package oauth

import "testing"

func TestMetadataURL(t *testing.T) {
	tests := []struct {
		resource, want string
		wantErr        bool
	}{
		{"https://sb.example.com/mcp", "https://sb.example.com/.well-known/oauth-protected-resource/mcp", false},
		{"https://sb.example.com/mcp/", "https://sb.example.com/.well-known/oauth-protected-resource/mcp", false},
		{"https://sb.example.com", "https://sb.example.com/.well-known/oauth-protected-resource", false},
		{"https://sb.example.com/", "https://sb.example.com/.well-known/oauth-protected-resource", false},
		{"http://127.0.0.1:8080/api/v1", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/api/v1", false},
		{"https://sb.example.com/mcp?x=1", "", true},
		{"https://sb.example.com/mcp#f", "", true},
		{"https://u:p@sb.example.com/mcp", "", true},
		{"ftp://sb.example.com/mcp", "", true},
		{"/mcp", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			got, err := MetadataURL(tt.resource)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("MetadataURL(%q) = %q, %v; want %q, error %v", tt.resource, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestChallenge(t *testing.T) {
	m := "https://sb.example.com/.well-known/oauth-protected-resource/mcp"
	if got, want := Challenge(m), `Bearer resource_metadata="`+m+`"`; got != want {
		t.Errorf("Challenge = %q, want %q", got, want)
	}
	if got, want := ChallengeInvalidToken(m), `Bearer error="invalid_token", resource_metadata="`+m+`"`; got != want {
		t.Errorf("ChallengeInvalidToken = %q, want %q", got, want)
	}
	// A quote or line break in a misconfigured URL must not end the
	// quoted string or split the header.
	if got, want := Challenge("https://x/\"a\r\nb"), `Bearer resource_metadata="https://x/ab"`; got != want {
		t.Errorf("Challenge of a hostile URL = %q, want %q", got, want)
	}
}
