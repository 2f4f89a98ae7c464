package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestGrants lists and revokes a user's OAuth grants by user name; one
// user's name never reaches another's grant.
func TestGrants(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Builtin.Roots = []string{dir}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := t.Context()
	ann, _, err := a.AddUser(ctx, "ann", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.AddUser(ctx, "bob", false, nil); err != nil {
		t.Fatal(err)
	}
	st, err := a.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutOAuthClient(ctx, store.OAuthClient{ID: "c1", Name: "C", RedirectURIs: []string{"http://127.0.0.1/cb"}, Source: store.OAuthClientRegistered}); err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateOAuthGrant(ctx, store.OAuthGrant{UserID: ann.ID, ClientID: "c1", Resource: "http://127.0.0.1:8080/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutOAuthToken(ctx, store.OAuthToken{Hash: "h", GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	if got, err := a.Grants(ctx, "ann"); err != nil || len(got) != 1 || got[0].ID != g.ID {
		t.Fatalf("Grants(ann) = %+v, %v", got, err)
	}
	if got, err := a.Grants(ctx, "bob"); err != nil || len(got) != 0 {
		t.Fatalf("Grants(bob) = %+v, %v; want none", got, err)
	}
	if _, err := a.Grants(ctx, "nobody"); err == nil || !strings.Contains(err.Error(), "no user named") {
		t.Errorf("Grants(nobody) = %v", err)
	}
	if err := a.RevokeGrant(ctx, "bob", g.ID); err == nil || !strings.Contains(err.Error(), "no live grant") {
		t.Fatalf("bob revoking ann's grant = %v, want refused", err)
	}
	if _, _, err := st.OAuthAccess(ctx, "h"); err != nil {
		t.Fatalf("ann's token refused after bob's failed revoke: %v", err)
	}
	if err := a.RevokeGrant(ctx, "ann", g.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.OAuthAccess(ctx, "h"); err == nil {
		t.Fatal("token of a revoked grant still accepted")
	}
}
