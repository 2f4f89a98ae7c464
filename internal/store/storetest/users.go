package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func keyHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

func testUsers(t *testing.T, s store.Store) {
	ann, err := s.CreateUser(ctx(t), store.User{Name: "ann", KeyHash: keyHash("k1"), Permissions: []string{"files__*", "calculator"}})
	must(t, "CreateUser", err)
	if ann.ID == "" || ann.CreatedAt.IsZero() {
		t.Errorf("CreateUser assigned no ID or time: %+v", ann)
	}
	bob, err := s.CreateUser(ctx(t), store.User{Name: "bob", KeyHash: keyHash("k2"), Disabled: true})
	must(t, "CreateUser", err)
	if bob.Permissions == nil {
		t.Error("nil permissions should come back as an empty list")
	}
	if ann.Role != store.RoleUser || bob.Role != store.RoleUser {
		t.Errorf("users created without a role have roles %q and %q, want %q", ann.Role, bob.Role, store.RoleUser)
	}
	_, err = s.CreateUser(ctx(t), store.User{Name: "ann", KeyHash: keyHash("k3")})
	wantErr(t, "CreateUser with a taken name", err, store.ErrConflict)
	_, err = s.CreateUser(ctx(t), store.User{Name: "cy", KeyHash: keyHash("k1")})
	wantErr(t, "CreateUser with a taken key", err, store.ErrConflict)
	_, err = s.CreateUser(ctx(t), store.User{Name: "dee", KeyHash: "sk-plaintext-key"})
	wantErr(t, "CreateUser with a key instead of its hash", err, store.ErrInvalid)

	got, err := s.GetUserByName(ctx(t), "ann")
	must(t, "GetUserByName", err)
	diff(t, "GetUserByName", ann, got)
	got, err = s.GetUserByKeyHash(ctx(t), keyHash("k2"))
	must(t, "GetUserByKeyHash", err)
	diff(t, "GetUserByKeyHash", bob, got)
	_, err = s.GetUserByKeyHash(ctx(t), keyHash("unknown"))
	wantErr(t, "GetUserByKeyHash of an unknown key", err, store.ErrNotFound)
	if err != nil && strings.Contains(err.Error(), keyHash("unknown")) {
		t.Errorf("error %q repeats the key hash", err)
	}
	list, err := s.ListUsers(ctx(t))
	must(t, "ListUsers", err)
	diff(t, "ListUsers", []store.User{ann, bob}, list)

	must(t, "DeleteUser", s.DeleteUser(ctx(t), ann.ID))
	_, err = s.GetUserByName(ctx(t), "ann")
	wantErr(t, "GetUserByName after delete", err, store.ErrNotFound)
	wantErr(t, "DeleteUser twice", s.DeleteUser(ctx(t), ann.ID), store.ErrNotFound)
}

// testUserRoles checks roles, the reserved anonymous name, GetUser,
// UpdateUser and that UsersVersion moves with every write to users.
func testUserRoles(t *testing.T, s store.Store) {
	v0, err := s.UsersVersion(ctx(t))
	must(t, "UsersVersion", err)
	for _, name := range []string{"local", "LOCAL", "Local"} {
		_, err := s.CreateUser(ctx(t), store.User{Name: name, KeyHash: keyHash("kl" + name)})
		wantErr(t, "CreateUser named "+name, err, store.ErrInvalid)
	}
	_, err = s.CreateUser(ctx(t), store.User{Name: "eve", KeyHash: keyHash("ke"), Role: "root"})
	wantErr(t, "CreateUser with an unknown role", err, store.ErrInvalid)
	if v, err := s.UsersVersion(ctx(t)); err != nil || v != v0 {
		t.Errorf("UsersVersion after refused creates = %d, %v; want %d", v, err, v0)
	}

	ada, err := s.CreateUser(ctx(t), store.User{Name: "ada", KeyHash: keyHash("ka"), Role: store.RoleAdmin, Permissions: []string{"*"}})
	must(t, "CreateUser admin", err)
	if !ada.IsAdmin() {
		t.Errorf("created admin has role %q", ada.Role)
	}
	v1, err := s.UsersVersion(ctx(t))
	must(t, "UsersVersion", err)
	if v1 == v0 {
		t.Error("UsersVersion did not change when a user was created")
	}
	got, err := s.GetUser(ctx(t), ada.ID)
	must(t, "GetUser", err)
	diff(t, "GetUser", ada, got)
	_, err = s.GetUser(ctx(t), "no-such-id")
	wantErr(t, "GetUser of an unknown id", err, store.ErrNotFound)

	upd, err := s.UpdateUser(ctx(t), store.User{ID: ada.ID, Name: "ignored", Role: store.RoleUser, Permissions: []string{"calculator"}, Disabled: true})
	must(t, "UpdateUser", err)
	want := ada
	want.Role, want.Permissions, want.Disabled = store.RoleUser, []string{"calculator"}, true
	diff(t, "UpdateUser", want, upd)
	got, err = s.GetUserByKeyHash(ctx(t), keyHash("ka"))
	must(t, "GetUserByKeyHash after UpdateUser", err)
	diff(t, "GetUserByKeyHash after UpdateUser", want, got)
	v2, err := s.UsersVersion(ctx(t))
	must(t, "UsersVersion", err)
	if v2 == v1 {
		t.Error("UsersVersion did not change when a user was updated")
	}
	_, err = s.UpdateUser(ctx(t), store.User{ID: ada.ID, Role: "root"})
	wantErr(t, "UpdateUser with an unknown role", err, store.ErrInvalid)
	_, err = s.UpdateUser(ctx(t), store.User{ID: "no-such-id", Role: store.RoleUser})
	wantErr(t, "UpdateUser of an unknown id", err, store.ErrNotFound)

	must(t, "DeleteUser", s.DeleteUser(ctx(t), ada.ID))
	v3, err := s.UsersVersion(ctx(t))
	must(t, "UsersVersion", err)
	if v3 == v2 {
		t.Error("UsersVersion did not change when a user was deleted")
	}
}

// testTimes checks that times come back in UTC with at least millisecond
// (in fact microsecond) precision, whatever zone they went in with.
func testTimes(t *testing.T, s store.Store) {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	at := time.Date(2026, 7, 28, 23, 59, 58, 123456789, zone)
	want := at.UTC().Truncate(time.Microsecond)
	c, err := s.CreateConversation(ctx(t), store.Conversation{CreatedAt: at})
	must(t, "CreateConversation", err)
	got, err := s.GetConversation(ctx(t), c.ID)
	must(t, "GetConversation", err)
	msgs, err := s.AppendMessages(ctx(t), c.ID, store.Message{Message: userText("x"), CreatedAt: at})
	must(t, "AppendMessages", err)
	listed, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "t", Time: at})
	must(t, "BeginAudit", err)
	recs, err := s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	a, err := s.CreateApproval(ctx(t), store.Approval{Tool: "t", ExpiresAt: at.Add(time.Hour)})
	must(t, "CreateApproval", err)
	ga, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	if len(msgs) != 1 || len(listed) != 1 || len(recs) != 1 || recs[0].ID != id {
		t.Fatalf("unexpected records: %d appended, %d listed, %d audit", len(msgs), len(listed), len(recs))
	}
	for _, tc := range []struct {
		name      string
		want, got time.Time
	}{
		{"conversation CreatedAt", want, got.CreatedAt},
		{"returned conversation CreatedAt", want, c.CreatedAt},
		{"message CreatedAt", want, listed[0].CreatedAt},
		{"returned message CreatedAt", want, msgs[0].CreatedAt},
		{"audit Time", want, recs[0].Time},
		{"approval ExpiresAt", want.Add(time.Hour), ga.ExpiresAt},
	} {
		if !tc.got.Equal(tc.want) || tc.got.Location() != time.UTC {
			t.Errorf("%s = %v, want %v in UTC", tc.name, tc.got, tc.want)
		}
	}
	if !ga.DecidedAt.IsZero() {
		t.Errorf("pending approval DecidedAt = %v, want zero", ga.DecidedAt)
	}
}

// testLargeArguments stores 1 MB of tool arguments in a message, an approval
// and an audit record.
func testLargeArguments(t *testing.T, s store.Store) {
	big := json.RawMessage(`{"text":"` + strings.Repeat("abcdefgh", 1<<17) + `"}`)
	c := newConversation(t, s, "")
	_, err := s.AppendMessages(ctx(t), c.ID, store.Message{Message: llm.Message{
		Role:      llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "1", Name: "files__write", Arguments: big}},
	}})
	must(t, "AppendMessages", err)
	msgs, err := s.ListMessages(ctx(t), c.ID, store.MessageFilter{})
	must(t, "ListMessages", err)
	if len(msgs) != 1 || len(msgs[0].ToolCalls) != 1 || string(msgs[0].ToolCalls[0].Arguments) != string(big) {
		t.Error("1 MB tool call arguments did not round-trip")
	}
	a, err := s.CreateApproval(ctx(t), store.Approval{Tool: "files__write", Arguments: big})
	must(t, "CreateApproval", err)
	got, err := s.GetApproval(ctx(t), a.ID)
	must(t, "GetApproval", err)
	if string(got.Arguments) != string(big) {
		t.Error("1 MB approval arguments did not round-trip")
	}
	_, err = s.BeginAudit(ctx(t), store.AuditRecord{Tool: "files__write", Arguments: big})
	must(t, "BeginAudit", err)
	recs, err := s.ListAudit(ctx(t), store.AuditFilter{})
	must(t, "ListAudit", err)
	if len(recs) != 1 || string(recs[0].Arguments) != string(big) {
		t.Error("1 MB audit arguments did not round-trip")
	}
}

// testOddArguments checks that arguments are kept byte for byte, even when
// a model sent malformed JSON with NUL bytes or invalid UTF-8.
func testOddArguments(t *testing.T, s store.Store) {
	for _, args := range []string{`{"a": 1}`, "{\"unterminated\x00", "\xff\xfe not utf-8", " "} {
		id, err := s.BeginAudit(ctx(t), store.AuditRecord{Tool: "t", Arguments: json.RawMessage(args)})
		must(t, "BeginAudit", err)
		recs, err := s.ListAudit(ctx(t), store.AuditFilter{Limit: 1})
		must(t, "ListAudit", err)
		if len(recs) != 1 || recs[0].ID != id || string(recs[0].Arguments) != args {
			t.Errorf("audit arguments %q did not round-trip: %+v", args, recs)
		}
		a, err := s.CreateApproval(ctx(t), store.Approval{Tool: "t", Arguments: json.RawMessage(args)})
		must(t, "CreateApproval", err)
		got, err := s.GetApproval(ctx(t), a.ID)
		must(t, "GetApproval", err)
		if string(got.Arguments) != args {
			t.Errorf("approval arguments %q came back as %q", args, got.Arguments)
		}
	}
}
