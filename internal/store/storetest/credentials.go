package storetest

import (
	"bytes"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testUserCredentials(t *testing.T, s store.Store) {
	ann, err := s.CreateUser(ctx(t), store.User{Name: "cred-ann", KeyHash: keyHash("cred-k1")})
	must(t, "CreateUser", err)
	bob, err := s.CreateUser(ctx(t), store.User{Name: "cred-bob", KeyHash: keyHash("cred-k2")})
	must(t, "CreateUser", err)

	sealed := []byte{0, 0xff, 'a', 0}
	first, err := s.PutUserCredential(ctx(t), store.UserCredential{UserID: ann.ID, Server: "gh", Sealed: sealed})
	must(t, "PutUserCredential", err)
	if first.CreatedAt.IsZero() || len(first.Sealed) != 0 {
		t.Errorf("PutUserCredential returned %+v: want a time and no sealed value", first)
	}
	_, err = s.PutUserCredential(ctx(t), store.UserCredential{UserID: bob.ID, Server: "gh", Sealed: []byte("bob")})
	must(t, "PutUserCredential for bob", err)
	again, err := s.PutUserCredential(ctx(t), store.UserCredential{UserID: ann.ID, Server: "gh", Sealed: []byte("ann2")})
	must(t, "PutUserCredential replacing", err)
	if !again.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("replacing moved the connection time from %v to %v", first.CreatedAt, again.CreatedAt)
	}

	got, err := s.GetUserCredential(ctx(t), ann.ID, "gh")
	must(t, "GetUserCredential", err)
	if !bytes.Equal(got.Sealed, []byte("ann2")) {
		t.Errorf("ann's credential is %q, want her replacement", got.Sealed)
	}
	got, err = s.GetUserCredential(ctx(t), bob.ID, "gh")
	must(t, "GetUserCredential for bob", err)
	if !bytes.Equal(got.Sealed, []byte("bob")) {
		t.Errorf("bob's credential is %q, want his own", got.Sealed)
	}
	_, err = s.GetUserCredential(ctx(t), ann.ID, "other")
	wantErr(t, "GetUserCredential of an unconnected server", err, store.ErrNotFound)

	for _, bad := range []store.UserCredential{{Server: "gh", Sealed: sealed}, {UserID: ann.ID, Sealed: sealed}, {UserID: ann.ID, Server: "gh"}} {
		_, err := s.PutUserCredential(ctx(t), bad)
		wantErr(t, "PutUserCredential of an incomplete credential", err, store.ErrInvalid)
	}
	_, err = s.PutUserCredential(ctx(t), store.UserCredential{UserID: "no-such-user", Server: "gh", Sealed: sealed})
	wantErr(t, "PutUserCredential for a missing user", err, store.ErrNotFound)

	list, err := s.ListUserCredentials(ctx(t), ann.ID)
	must(t, "ListUserCredentials", err)
	if len(list) != 1 || list[0].Server != "gh" || len(list[0].Sealed) != 0 {
		t.Errorf("ann's list %+v, want gh alone without its sealed value", list)
	}

	// Ann deleting her own leaves Bob's.
	must(t, "DeleteUserCredential", s.DeleteUserCredential(ctx(t), ann.ID, "gh"))
	wantErr(t, "DeleteUserCredential again", s.DeleteUserCredential(ctx(t), ann.ID, "gh"), store.ErrNotFound)
	_, err = s.GetUserCredential(ctx(t), bob.ID, "gh")
	must(t, "GetUserCredential for bob after ann's delete", err)

	// Deleting the user deletes their credentials.
	must(t, "DeleteUser", s.DeleteUser(ctx(t), bob.ID))
	_, err = s.GetUserCredential(ctx(t), bob.ID, "gh")
	wantErr(t, "GetUserCredential of a deleted user", err, store.ErrNotFound)
}
