package config

import (
	"strings"
	"testing"
)

func TestValidatePublicURL(t *testing.T) {
	tests := []struct {
		url     string
		wantErr string // "" means valid
	}{
		{"https://switchboard.example.com", ""},
		{"https://switchboard.example.com/", ""},
		{"https://switchboard.example.com:8443", ""},
		{"http://127.0.0.1:8080", ""},
		{"http://localhost:8080", ""},
		{"http://switchboard.example.com", "must be https"},
		{"https://switchboard.example.com/sb", "must have no path"},
		{"https://switchboard.example.com?x=1", "without user info, query or fragment"},
		{"https://u@switchboard.example.com", "without user info, query or fragment"},
		{"switchboard.example.com", "absolute URL"},
	}
	for _, tc := range tests {
		c := Default()
		c.Server.PublicURL = tc.url
		err := c.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.url, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), "server.publicURL") || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want server.publicURL ... %q", tc.url, err, tc.wantErr)
		}
	}
}
