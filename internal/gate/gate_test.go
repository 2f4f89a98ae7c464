package gate_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

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

// TestAdmitOrder: a forbidden call is refused as forbidden and takes no
// token; an allowed one takes a token; over the limit it is a rate refusal.
func TestAdmitOrder(t *testing.T) {
	now := time.Unix(1000, 0)
	g := gate.New(&gate.Options{Limiter: gate.NewBuckets(1, 1, func() time.Time { return now })})
	ann := gate.Caller{ID: "u1", Name: "ann", Permissions: []string{"files__read"}}
	ctx := context.Background()

	var ref *gate.Refusal
	if err := g.Admit(ctx, &ann, entry("files__rm")); !errors.As(err, &ref) || ref.Approval != store.AuditForbidden || !errors.Is(err, gate.ErrForbidden) {
		t.Fatalf("forbidden call: %v, want a forbidden refusal", err)
	}
	if err := g.Admit(ctx, &ann, entry("files__read")); err != nil {
		t.Fatalf("first permitted call: %v (the forbidden one must not take the token)", err)
	}
	var rate *gate.RateError
	if err := g.Admit(ctx, &ann, entry("files__read")); !errors.As(err, &rate) || rate.RetryAfter != 1 {
		t.Fatalf("second call within the burst: %v, want a rate refusal with retry after 1 s", err)
	}
	// Another user has its own bucket.
	bob := gate.Caller{ID: "u2", Name: "bob", Permissions: []string{"*"}}
	if err := g.Admit(ctx, &bob, entry("files__read")); err != nil {
		t.Fatalf("another user's call: %v", err)
	}
	now = now.Add(time.Second)
	if err := g.Admit(ctx, &ann, entry("files__read")); err != nil {
		t.Fatalf("a call after the refill: %v", err)
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
	err := g.Admit(context.Background(), &local, entry("files__rm"))
	if !errors.Is(err, held) || !errors.Is(err, gate.ErrForbidden) {
		t.Errorf("Admit of a held tool: %v, want forbidden wrapping the hold's reason", err)
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

// BenchmarkAdmit is the gate's cost on the hot path of a permitted call:
// the permission globs and a token from the caller's bucket.
//
//	go test -run '^$' -bench Admit ./internal/gate/
func BenchmarkAdmit(b *testing.B) {
	g := gate.New(&gate.Options{Limiter: gate.NewBuckets(1e12, 1e9, nil)})
	c := gate.Caller{ID: "u1", Name: "ann", Permissions: []string{"mail__*", "calendar__*", "files__*"}}
	e := entry("files__read")
	ctx := context.Background()
	for b.Loop() {
		if err := g.Admit(ctx, &c, e); err != nil {
			b.Fatal(err)
		}
	}
}
