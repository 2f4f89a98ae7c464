package mcphost_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestOAuthClientCredentials connects with the client_credentials grant: no
// registration, no browser, no stored grant; a wrong or missing secret
// leaves the server failed with the reason.
func TestOAuthClientCredentials(t *testing.T) {
	sc, as := mcptest.OAuthServer(t, "machine", time.Minute)
	as.AddConfidentialClient("switchboard-svc", "s3cret")

	tests := []struct {
		name    string
		oauth   mcphost.OAuthConfig
		ready   bool
		wantErr string
	}{
		{name: "pre-registered secret", oauth: mcphost.OAuthConfig{ClientID: "switchboard-svc", ClientSecret: "s3cret"}, ready: true},
		{name: "wrong secret", oauth: mcphost.OAuthConfig{ClientID: "switchboard-svc", ClientSecret: "guess"}, wantErr: "invalid_client"},
		{name: "another client's id", oauth: mcphost.OAuthConfig{ClientID: "someone-else", ClientSecret: "s3cret"}, wantErr: "invalid_client"},
		{name: "no secret", oauth: mcphost.OAuthConfig{ClientID: "switchboard-svc"}, wantErr: "needs a pre-registered clientId and clientSecret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := as.ClientCredentials.Load()
			cfg := sc
			o := tt.oauth
			o.Grant = mcphost.GrantClientCredentials
			cfg.OAuth = &o
			opts := testOptions()
			opts.DataDir = t.TempDir()
			opts.OAuthHTTPClient = loopbackClient() // and no OAuthRedirect: nobody to log in
			p := startPool(t, []mcphost.ServerConfig{cfg}, opts)
			st := statusOf(t, p, "machine")
			if !tt.ready {
				if st.State == mcphost.StateReady || !strings.Contains(st.LastError, tt.wantErr) {
					t.Fatalf("status %s %q, want not ready with %q", st.State, st.LastError, tt.wantErr)
				}
				if as.ClientCredentials.Load() != before {
					t.Errorf("a token was granted")
				}
				return
			}
			if st.State != mcphost.StateReady {
				t.Fatalf("not ready: %s", st.LastError)
			}
			res, err := call(t, findTool(t, p, "echo"), map[string]any{"text": "m2m"})
			if err != nil || res.Text() != "m2m" {
				t.Fatalf("echo: %v, %v", res, err)
			}
			if as.ClientCredentials.Load() != before+1 || as.Authorizations.Load() != 0 || as.Registrations.Load() != 0 {
				t.Errorf("client_credentials grants %d (before %d), authorizations %d, registrations %d; want one grant and no login",
					as.ClientCredentials.Load(), before, as.Authorizations.Load(), as.Registrations.Load())
			}
		})
	}
}
