package storetest

import (
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testWebSessions(t *testing.T, st store.Store) {
	s, ok := st.(store.WebSessions)
	if !ok {
		t.Fatalf("%T does not implement store.WebSessions", st)
	}
	ann, err := st.CreateUser(ctx(t), store.User{Name: "ann", KeyHash: keyHash("k1")})
	must(t, "CreateUser", err)
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)

	got, err := s.CreateWebSession(ctx(t), store.WebSession{IDHash: keyHash("cookie1"), UserID: ann.ID, ExpiresAt: expires})
	must(t, "CreateWebSession", err)
	if got.CreatedAt.IsZero() || !got.LastSeenAt.Equal(got.CreatedAt) || !got.ExpiresAt.Equal(expires) {
		t.Errorf("CreateWebSession returned %+v", got)
	}
	_, err = s.CreateWebSession(ctx(t), store.WebSession{IDHash: keyHash("cookie1"), UserID: ann.ID, ExpiresAt: expires})
	wantErr(t, "CreateWebSession with a taken id", err, store.ErrConflict)
	_, err = s.CreateWebSession(ctx(t), store.WebSession{IDHash: keyHash("cookie2"), UserID: "no-such-user", ExpiresAt: expires})
	wantErr(t, "CreateWebSession for a missing user", err, store.ErrNotFound)
	for _, bad := range []store.WebSession{
		{IDHash: "cookie-value-itself", UserID: ann.ID, ExpiresAt: expires},
		{IDHash: keyHash("c"), ExpiresAt: expires},
		{IDHash: keyHash("c"), UserID: ann.ID},
	} {
		_, err := s.CreateWebSession(ctx(t), bad)
		wantErr(t, "CreateWebSession of an invalid session", err, store.ErrInvalid)
	}

	back, err := s.GetWebSession(ctx(t), keyHash("cookie1"))
	must(t, "GetWebSession", err)
	if back.UserID != ann.ID || !back.ExpiresAt.Equal(expires) || !back.CreatedAt.Equal(got.CreatedAt) {
		t.Errorf("GetWebSession = %+v, want %+v", back, got)
	}
	_, err = s.GetWebSession(ctx(t), keyHash("cookie2"))
	wantErr(t, "GetWebSession of a missing session", err, store.ErrNotFound)

	later := got.CreatedAt.Add(time.Minute)
	must(t, "TouchWebSession", s.TouchWebSession(ctx(t), keyHash("cookie1"), later))
	back, err = s.GetWebSession(ctx(t), keyHash("cookie1"))
	must(t, "GetWebSession", err)
	if !back.LastSeenAt.Equal(later) {
		t.Errorf("LastSeenAt after touch = %v, want %v", back.LastSeenAt, later)
	}
	wantErr(t, "TouchWebSession of a missing session", s.TouchWebSession(ctx(t), keyHash("cookie2"), later), store.ErrNotFound)

	must(t, "DeleteWebSession", s.DeleteWebSession(ctx(t), keyHash("cookie1")))
	must(t, "DeleteWebSession again", s.DeleteWebSession(ctx(t), keyHash("cookie1")))
	_, err = s.GetWebSession(ctx(t), keyHash("cookie1"))
	wantErr(t, "GetWebSession after logout", err, store.ErrNotFound)

	// Ending all of a user's sessions, and deleting the user, leave none.
	for _, c := range []string{"a", "b"} {
		_, err := s.CreateWebSession(ctx(t), store.WebSession{IDHash: keyHash(c), UserID: ann.ID, ExpiresAt: expires})
		must(t, "CreateWebSession", err)
	}
	must(t, "DeleteUserWebSessions", s.DeleteUserWebSessions(ctx(t), ann.ID))
	_, err = s.GetWebSession(ctx(t), keyHash("a"))
	wantErr(t, "GetWebSession after DeleteUserWebSessions", err, store.ErrNotFound)
	_, err = s.CreateWebSession(ctx(t), store.WebSession{IDHash: keyHash("c"), UserID: ann.ID, ExpiresAt: expires})
	must(t, "CreateWebSession", err)
	must(t, "DeleteUser", st.DeleteUser(ctx(t), ann.ID))
	_, err = s.GetWebSession(ctx(t), keyHash("c"))
	wantErr(t, "GetWebSession of a deleted user", err, store.ErrNotFound)
}
