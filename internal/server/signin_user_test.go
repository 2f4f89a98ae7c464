package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/signin"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

func TestGrantFor(t *testing.T) {
	roles := map[string]SignInRole{
		"admins": {Role: store.RoleAdmin, Permissions: []string{"*"}},
		"staff":  {Permissions: []string{"notes__*", "files__read"}},
		"ops":    {Role: store.RoleUser, Permissions: []string{"files__read", "term__*"}},
	}
	def := &SignInRole{Permissions: []string{"time__*"}}
	tests := []struct {
		name   string
		values []string
		def    *SignInRole
		want   SignInRole
		ok     bool
	}{
		{"admin wins", []string{"staff", "admins"}, nil, SignInRole{Role: store.RoleAdmin, Permissions: []string{"*", "files__read", "notes__*"}}, true},
		{"union of globs", []string{"staff", "ops", "unknown"}, nil, SignInRole{Role: store.RoleUser, Permissions: []string{"files__read", "notes__*", "term__*"}}, true},
		{"none mapped, default", []string{"guests"}, def, SignInRole{Role: store.RoleUser, Permissions: []string{"time__*"}}, true},
		{"none mapped, refused", []string{"guests"}, nil, SignInRole{}, false},
		{"no claim, refused", nil, nil, SignInRole{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := grantFor(tt.values, roles, tt.def)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("grant mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUserName(t *testing.T) {
	tests := []struct {
		name, subject, want string
	}{
		{"alice", "1", "alice"},
		{"Bob Smith <b@x>", "2", "Bob-Smith-b@x"},
		{"LOCAL", "abc", "oidc-abc"},
		{"", "00u1/ab", "oidc-00u1-ab"},
		{"\u202eevil\n", "3", "evil"},
	}
	for _, tt := range tests {
		if got := userName(signin.Identity{Name: tt.name, Subject: tt.subject}); got != tt.want {
			t.Errorf("userName(%q, %q) = %q, want %q", tt.name, tt.subject, got, tt.want)
		}
	}
}
