package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// testUpstreamAuthStates: a pending authorization is taken once, only by
// its user; another user's take leaves it; an expired one is refused.
func testUpstreamAuthStates(t *testing.T, s store.Store) {
	ann, err := s.CreateUser(ctx(t), store.User{Name: "ua-ann", KeyHash: keyHash("ua-k1")})
	must(t, "CreateUser", err)
	bob, err := s.CreateUser(ctx(t), store.User{Name: "ua-bob", KeyHash: keyHash("ua-k2")})
	must(t, "CreateUser", err)
	st := store.UpstreamAuthState{StateHash: keyHash("state-1"), UserID: ann.ID, Server: "gh", Sealed: []byte{0, 1, 2}, ExpiresAt: time.Now().Add(time.Minute)}
	must(t, "PutUpstreamAuthState", s.PutUpstreamAuthState(ctx(t), st))
	wantErr(t, "PutUpstreamAuthState with a taken hash", s.PutUpstreamAuthState(ctx(t), st), store.ErrConflict)
	for _, bad := range []store.UpstreamAuthState{{UserID: ann.ID, Server: "gh", Sealed: []byte{1}, ExpiresAt: st.ExpiresAt}, {StateHash: keyHash("x"), UserID: ann.ID, Server: "gh", ExpiresAt: st.ExpiresAt}} {
		wantErr(t, "PutUpstreamAuthState incomplete", s.PutUpstreamAuthState(ctx(t), bad), store.ErrInvalid)
	}

	_, err = s.TakeUpstreamAuthState(ctx(t), st.StateHash, bob.ID)
	wantErr(t, "bob taking ann's state", err, store.ErrNotFound)
	got, err := s.TakeUpstreamAuthState(ctx(t), st.StateHash, ann.ID)
	must(t, "TakeUpstreamAuthState", err)
	if got.Server != "gh" || !bytes.Equal(got.Sealed, st.Sealed) || got.UserID != ann.ID {
		t.Errorf("took %+v, want ann's state for gh", got)
	}
	_, err = s.TakeUpstreamAuthState(ctx(t), st.StateHash, ann.ID)
	wantErr(t, "taking a state twice", err, store.ErrNotFound)

	old := store.UpstreamAuthState{StateHash: keyHash("state-2"), UserID: ann.ID, Server: "gh", Sealed: []byte{1}, ExpiresAt: time.Now().Add(-time.Second)}
	must(t, "PutUpstreamAuthState expired", s.PutUpstreamAuthState(ctx(t), old))
	_, err = s.TakeUpstreamAuthState(ctx(t), old.StateHash, ann.ID)
	wantErr(t, "taking an expired state", err, store.ErrNotFound)
}
