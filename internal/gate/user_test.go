package gate_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestCallActsForTheCheckedCaller: a call acts for the caller the gate
// checked, never for a user a surface left in ctx, so a per-user upstream
// cannot be reached with another user's credentials through any surface.
func TestCallActsForTheCheckedCaller(t *testing.T) {
	log := &memAudit{recs: map[string]store.AuditRecord{}, results: map[string]store.AuditResult{}}
	g := gate.New(&gate.Options{Audit: log, Policy: gate.Policy{Mode: gate.ModeAllowAll}})
	cat := &catalog{entries: map[string]tools.Entry{"files__whoami": entry("files__whoami")}}
	for _, tc := range []struct{ ctxUser, caller, want string }{
		{"alice", "bob", "user=bob"},
		{"", "bob", "user=bob"},
		{"alice", "", "user="},
	} {
		ctx := tools.WithUser(context.Background(), tc.ctxUser)
		for _, timeout := range []bool{false, true} {
			sf := &gate.Surface{Catalog: cat, Agent: "test"}
			if timeout {
				sf.Timeout = 1 << 40
			}
			out := g.Call(ctx, sf, &gate.Request{Caller: &gate.Caller{ID: tc.caller, Name: tc.caller}, Name: "files__whoami"})
			if out.Err != nil || out.Result.Text() != tc.want {
				t.Errorf("ctx user %q, caller %q, timeout %v: %v %v, want %s", tc.ctxUser, tc.caller, timeout, out.Result, out.Err, tc.want)
			}
		}
	}
}
