package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// oauthFixture stores two users, a client and a live grant of ann's with
// one token of each kind.
type oauthFixture struct {
	ann, bob store.User
	grant    store.OAuthGrant
}

func newOAuthFixture(t *testing.T, s store.Store) oauthFixture {
	t.Helper()
	var f oauthFixture
	var err error
	if f.ann, err = s.CreateUser(ctx(t), store.User{Name: "ann", KeyHash: keyHash("oa1")}); err != nil {
		t.Fatal(err)
	}
	if f.bob, err = s.CreateUser(ctx(t), store.User{Name: "bob", KeyHash: keyHash("oa2")}); err != nil {
		t.Fatal(err)
	}
	c := store.OAuthClient{ID: "client-1", Name: "Test client", RedirectURIs: []string{"http://127.0.0.1/cb"}, Source: store.OAuthClientRegistered}
	if err := s.PutOAuthClient(ctx(t), c); err != nil {
		t.Fatal(err)
	}
	f.grant, err = s.CreateOAuthGrant(ctx(t), store.OAuthGrant{UserID: f.ann.ID, ClientID: c.ID, Resource: "https://sb.example.com/mcp", Scopes: []string{"mcp"}})
	if err != nil || f.grant.ID == "" {
		t.Fatalf("CreateOAuthGrant = %+v, %v", f.grant, err)
	}
	exp := time.Now().Add(time.Hour)
	for _, tok := range []store.OAuthToken{
		{Hash: "code-1", GrantID: f.grant.ID, Kind: store.OAuthCode, ExpiresAt: exp, RedirectURI: "http://127.0.0.1/cb", Challenge: "ch"},
		{Hash: "access-1", GrantID: f.grant.ID, Kind: store.OAuthAccess, ExpiresAt: exp},
		{Hash: "refresh-1", GrantID: f.grant.ID, Kind: store.OAuthRefresh, ExpiresAt: exp},
		{Hash: "access-old", GrantID: f.grant.ID, Kind: store.OAuthAccess, ExpiresAt: time.Now().Add(-time.Minute)},
	} {
		if err := s.PutOAuthToken(ctx(t), tok); err != nil {
			t.Fatalf("PutOAuthToken(%s): %v", tok.Hash, err)
		}
	}
	return f
}

// testOAuth keeps clients, grants and tokens: a code is redeemed once, an
// access token is its grant's only while live, and one user cannot revoke
// another's grant.
func testOAuth(t *testing.T, s store.Store) {
	f := newOAuthFixture(t, s)
	c, err := s.GetOAuthClient(ctx(t), "client-1")
	if err != nil || c.Name != "Test client" || len(c.RedirectURIs) != 1 || c.Source != store.OAuthClientRegistered {
		t.Fatalf("GetOAuthClient = %+v, %v", c, err)
	}
	if _, err := s.GetOAuthClient(ctx(t), "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetOAuthClient(nope) = %v, want ErrNotFound", err)
	}
	if err := s.PutOAuthClient(ctx(t), c); !errors.Is(err, store.ErrConflict) {
		t.Errorf("PutOAuthClient of a taken ID = %v, want ErrConflict", err)
	}
	if _, err := s.CreateOAuthGrant(ctx(t), store.OAuthGrant{UserID: "no-such-user", ClientID: c.ID, Resource: "r"}); err == nil {
		t.Error("CreateOAuthGrant for a user that does not exist succeeded")
	}

	tok, g, err := s.UseOAuthToken(ctx(t), "code-1", store.OAuthCode)
	if err != nil || g.ID != f.grant.ID || g.UserID != f.ann.ID || tok.Challenge != "ch" || tok.RedirectURI != "http://127.0.0.1/cb" || tok.UsedAt.IsZero() {
		t.Fatalf("UseOAuthToken(code) = %+v, %+v, %v", tok, g, err)
	}
	if _, _, err := s.UseOAuthToken(ctx(t), "access-1", store.OAuthCode); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("redeeming an access token as a code = %v, want ErrNotFound", err)
	}
	if _, g, err := s.OAuthAccess(ctx(t), "access-1"); err != nil || g.Resource != "https://sb.example.com/mcp" || len(g.Scopes) != 1 {
		t.Errorf("OAuthAccess(live) = %+v, %v", g, err)
	}
	if _, _, err := s.OAuthAccess(ctx(t), "access-old"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OAuthAccess(expired) = %v, want ErrNotFound", err)
	}
	if _, _, err := s.OAuthAccess(ctx(t), "refresh-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OAuthAccess(a refresh token) = %v, want ErrNotFound", err)
	}

	// bob can neither see nor revoke ann's grant.
	if got, err := s.ListOAuthGrants(ctx(t), f.bob.ID); err != nil || len(got) != 0 {
		t.Errorf("ListOAuthGrants(bob) = %+v, %v; want none", got, err)
	}
	if err := s.RevokeOAuthGrant(ctx(t), f.bob.ID, f.grant.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob revoking ann's grant = %v, want ErrNotFound", err)
	}
	if got, err := s.ListOAuthGrants(ctx(t), f.ann.ID); err != nil || len(got) != 1 || got[0].ID != f.grant.ID || got[0].ClientID != "client-1" {
		t.Fatalf("ListOAuthGrants(ann) = %+v, %v", got, err)
	}
	if err := s.RevokeOAuthGrant(ctx(t), f.ann.ID, f.grant.ID); err != nil {
		t.Fatalf("RevokeOAuthGrant: %v", err)
	}
	if _, _, err := s.OAuthAccess(ctx(t), "access-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OAuthAccess after revocation = %v, want ErrNotFound", err)
	}
	if _, _, err := s.UseOAuthToken(ctx(t), "refresh-1", store.OAuthRefresh); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refresh after revocation = %v, want ErrNotFound", err)
	}
	if got, _ := s.ListOAuthGrants(ctx(t), f.ann.ID); len(got) != 0 {
		t.Errorf("ListOAuthGrants after revocation = %+v", got)
	}
	if err := s.RevokeOAuthGrant(ctx(t), f.ann.ID, f.grant.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoking twice = %v, want ErrNotFound", err)
	}
}

// testOAuthReplay redeems one refresh token from many goroutines: exactly
// one wins, the others see a replay, and the replay revokes the grant so
// the winner's family (its access token) is refused too.
func testOAuthReplay(t *testing.T, s store.Store) {
	f := newOAuthFixture(t, s)
	const n = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		won, rep int
	)
	for range n {
		wg.Go(func() {
			_, _, err := s.UseOAuthToken(ctx(t), "refresh-1", store.OAuthRefresh)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, store.ErrReplayed):
				rep++
			default:
				t.Errorf("racing UseOAuthToken: %v", err)
			}
		})
	}
	wg.Wait()
	if won != 1 || rep != n-1 {
		t.Fatalf("of %d redemptions %d won and %d were replays; want 1 and %d", n, won, rep, n-1)
	}
	if _, _, err := s.OAuthAccess(ctx(t), "access-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("access token of a replayed grant = %v, want ErrNotFound", err)
	}
	if got, _ := s.ListOAuthGrants(ctx(t), f.ann.ID); len(got) != 0 {
		t.Errorf("grant still listed after a replay: %+v", got)
	}
}
