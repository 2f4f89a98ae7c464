package storetest

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testIdentities(t *testing.T, st store.Store) {
	s, ok := st.(store.Identities)
	if !ok {
		t.Fatalf("%T does not implement store.Identities", st)
	}
	const iss = "https://login.example.com"
	_, err := s.UserByIdentity(ctx(t), iss, "sub-1")
	wantErr(t, "UserByIdentity before any sign-in", err, store.ErrNotFound)

	alice, err := s.CreateIdentityUser(ctx(t), store.User{Name: "alice", KeyHash: keyHash("a"), Role: store.RoleAdmin, Permissions: []string{"*"}}, iss, "sub-1")
	must(t, "CreateIdentityUser", err)
	got, err := s.UserByIdentity(ctx(t), iss, "sub-1")
	must(t, "UserByIdentity", err)
	if got.ID != alice.ID || got.Name != "alice" || got.Role != store.RoleAdmin {
		t.Errorf("UserByIdentity = %+v, want %+v", got, alice)
	}
	// The same subject at another issuer is another account.
	_, err = s.UserByIdentity(ctx(t), "https://other.example.com", "sub-1")
	wantErr(t, "UserByIdentity at another issuer", err, store.ErrNotFound)

	// A taken account or name creates nothing: no half-made user remains.
	_, err = s.CreateIdentityUser(ctx(t), store.User{Name: "alice2", KeyHash: keyHash("b")}, iss, "sub-1")
	wantErr(t, "CreateIdentityUser of a linked account", err, store.ErrConflict)
	if _, err := st.GetUserByName(ctx(t), "alice2"); err == nil {
		t.Error("a user was created for an account already linked")
	}
	_, err = s.CreateIdentityUser(ctx(t), store.User{Name: "alice", KeyHash: keyHash("c")}, iss, "sub-2")
	wantErr(t, "CreateIdentityUser with a taken name", err, store.ErrConflict)
	_, err = s.UserByIdentity(ctx(t), iss, "sub-2")
	wantErr(t, "UserByIdentity after a refused create", err, store.ErrNotFound)
	_, err = s.CreateIdentityUser(ctx(t), store.User{Name: "x", KeyHash: keyHash("d")}, iss, "")
	wantErr(t, "CreateIdentityUser without a subject", err, store.ErrInvalid)

	// Deleting the user unlinks the account.
	must(t, "DeleteUser", st.DeleteUser(ctx(t), alice.ID))
	_, err = s.UserByIdentity(ctx(t), iss, "sub-1")
	wantErr(t, "UserByIdentity after the user was deleted", err, store.ErrNotFound)
	_, err = s.CreateIdentityUser(ctx(t), store.User{Name: "alice", KeyHash: keyHash("e")}, iss, "sub-1")
	must(t, "CreateIdentityUser after the user was deleted", err)
}
