package gate_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func entry(name string) tools.Entry {
	return tools.Entry{Name: name, Origin: tools.Origin{Kind: tools.KindMCP, Server: "files", Name: name}}
}

func TestCallerPermits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caller gate.Caller
		tool   string
		want   bool
	}{
		{"local user: every tool", gate.Local(gate.LocalUser), "files__rm", true},
		{"stored user without permissions: none", gate.Caller{ID: "u1", Name: "ann", Permissions: []string{}}, "files__read", false},
		{"glob", gate.Caller{ID: "u1", Permissions: []string{"files__*"}}, "files__read", true},
		{"glob elsewhere", gate.Caller{ID: "u1", Permissions: []string{"files__*"}}, "mail__send", false},
		{"malformed glob matches nothing", gate.Caller{ID: "u1", Permissions: []string{"[", "files__read"}}, "mail__send", false},
		// The name decides nothing: a stored user named local has its globs.
		{"stored user named local", gate.Caller{ID: "u2", Name: "local", Permissions: []string{"files__read"}}, "files__rm", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.caller.Permits(tc.tool); got != tc.want {
				t.Errorf("Permits(%q) = %v, want %v", tc.tool, got, tc.want)
			}
		})
	}
}

// TestHold: a hold keeps a permitted tool from the caller, listing and
// calling alike.
func TestHold(t *testing.T) {
	held := errors.New("pinned definition changed")
	g := gate.New(&gate.Options{Holds: []gate.Hold{func(_ context.Context, _ *gate.Caller, e tools.Entry) error {
		if e.Name == "files__rm" {
			return held
		}
		return nil
	}}})
	local := gate.Local(gate.LocalUser)
	if g.Visible(context.Background(), &local, entry("files__rm")) {
		t.Error("a held tool is visible")
	}
	cat := &catalog{entries: map[string]tools.Entry{"files__rm": entry("files__rm")}}
	out := g.Call(context.Background(), &gate.Surface{Catalog: cat}, &gate.Request{Caller: &local, Name: "files__rm"})
	if !errors.Is(out.Err, held) || !errors.Is(out.Err, gate.ErrForbidden) || cat.calls != 0 {
		t.Errorf("Call of a held tool: %v (%d calls), want forbidden wrapping the hold's reason", out.Err, cat.calls)
	}
	if !g.Visible(context.Background(), &local, entry("files__read")) {
		t.Error("a tool no hold keeps is not visible")
	}
}

// memAudit is an audit log in memory.
type memAudit struct {
	mu      sync.Mutex
	recs    map[string]store.AuditRecord
	results map[string]store.AuditResult
	fail    error
}

func (m *memAudit) BeginAudit(_ context.Context, r store.AuditRecord) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return "", m.fail
	}
	id := r.Tool + "#" + string(rune('0'+len(m.recs)))
	m.recs[id] = r
	return id, nil
}

func (m *memAudit) FinishAudit(_ context.Context, id string, r store.AuditResult) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.results[id] = r
	return nil
}

func TestAudit(t *testing.T) {
	log := &memAudit{recs: map[string]store.AuditRecord{}, results: map[string]store.AuditResult{}}
	g := gate.New(&gate.Options{Audit: log})
	ctx, cancel := context.WithCancel(context.Background())
	call, err := g.Begin(ctx, store.AuditRecord{User: "ann", Tool: "files__read", Approval: store.AuditAutoApproved})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the client left: the record still finishes
	call.Finish(ctx, store.AuditResult{Outcome: store.OutcomeCancelled})
	g.Refused(context.Background(), store.AuditRecord{User: "ann", Tool: "files__rm"}, store.AuditForbidden, "not in the user's permissions")

	got := map[string]store.Outcome{}
	for id, r := range log.results {
		got[log.recs[id].Tool+" "+string(r.Approval)] = r.Outcome
	}
	want := map[string]store.Outcome{"files__read ": store.OutcomeCancelled, "files__rm forbidden": store.OutcomeDenied}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit mismatch (-want +got):\n%s", diff)
	}

	log.fail = errors.New("disk full")
	if _, err := g.Begin(context.Background(), store.AuditRecord{Tool: "files__read"}); err == nil {
		t.Error("Begin succeeded while the audit log fails; a call that cannot be recorded must not be made")
	}
}

// BenchmarkCall is the gate's cost on the hot path of a permitted call:
// the permission globs, a token from the caller's bucket, the policy and
// the outcome, around a tool that answers at once (no audit log).
//
//	go test -run '^$' -bench Call ./internal/gate/
func BenchmarkCall(b *testing.B) {
	g := gate.New(&gate.Options{Limiter: gate.NewBuckets(1e12, 1e9, nil), Policy: gate.Policy{Mode: gate.ModeAllowAll}})
	c := gate.Caller{ID: "u1", Name: "ann", Permissions: []string{"mail__*", "calendar__*", "files__*"}}
	sf := &gate.Surface{Catalog: &catalog{entries: map[string]tools.Entry{"files__read": entry("files__read")}}}
	req := &gate.Request{Caller: &c, Name: "files__read", Arguments: []byte(`{}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out := g.Call(ctx, sf, req); out.Err != nil {
			b.Fatal(out.Err)
		}
	}
}
