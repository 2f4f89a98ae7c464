package gate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// catalog is a gate.Catalog in memory: its tools answer with their
// arguments, "fail" with a tool error and "hang" only when ctx ends; held
// names are held by pinning.
type catalog struct {
	mu      sync.Mutex
	entries map[string]tools.Entry
	held    map[string]tools.Entry
	calls   int // guarded by mu
}

func (c *catalog) Lookup(name string) (tools.Entry, bool) {
	e, ok := c.entries[name]
	return e, ok
}

func (c *catalog) LookupHeld(name string) (tools.Entry, *tools.HeldError) {
	if e, ok := c.held[name]; ok {
		return e, &tools.HeldError{Name: name}
	}
	return tools.Entry{}, nil
}

func (c *catalog) Call(ctx context.Context, name string, req *tools.CallRequest) (*tools.Result, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	switch name {
	case "files__fail":
		return tools.ErrorResult("disk on fire"), nil
	case "files__hang":
		<-ctx.Done()
		return nil, ctx.Err()
	case "files__whoami":
		return tools.TextResult("user=" + tools.UserOf(ctx)), nil
	}
	return tools.TextResult(string(req.Arguments)), nil
}

// count is an Options.Observe that keeps every count.
type count struct {
	mu  sync.Mutex
	got []string
}

func (c *count) observe(tool, server, outcome string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, fmt.Sprintf("%s %s %s", tool, server, outcome))
}

// TestCallOrder walks one caller through every step of Gate.Call and
// checks what each step leaves: the result, the audit record and the
// count. The limit has a burst of one and never refills, so the order of
// the steps shows in which calls take a token.
func TestCallOrder(t *testing.T) {
	log := &memAudit{recs: map[string]store.AuditRecord{}, results: map[string]store.AuditResult{}}
	n := &count{}
	cat := &catalog{
		entries: map[string]tools.Entry{
			"files__read": entry("files__read"), "files__rm": entry("files__rm"),
			"files__fail": entry("files__fail"), "files__hang": entry("files__hang"),
			"read_file": {Name: "read_file", Origin: tools.Origin{Kind: tools.KindBuiltin, Name: "read_file"}},
		},
		held: map[string]tools.Entry{"files__new": entry("files__new")},
	}
	policy := gate.Policy{Mode: gate.ModeAllowAll, Rules: []gate.Rule{{Tool: "files__rm", Action: gate.ActionDeny}}}
	g := gate.New(&gate.Options{Audit: log, Observe: n.observe, Policy: policy, Limiter: gate.NewBuckets(1e-9, 1, nil)})
	sf := &gate.Surface{Catalog: cat, Agent: "test"}
	ann := gate.Caller{ID: "u1", Name: "ann", Permissions: []string{"files__read", "files__rm", "files__new"}}
	ctx := context.Background()
	call := func(c gate.Caller, name string) gate.Result {
		return g.Call(ctx, sf, &gate.Request{Caller: &c, Name: name, Arguments: []byte(`{"a":1}`)})
	}

	// Unknown: refused before anything, neither recorded nor counted.
	if out := call(ann, "nosuch"); !errors.Is(out.Err, gate.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", out.Err)
	}
	// Forbidden and held: refused before the limit (no token taken).
	if out := call(ann, "files__fail"); out.Approval != store.AuditForbidden || !errors.Is(out.Err, gate.ErrForbidden) || out.Outcome != store.OutcomeDenied {
		t.Errorf("forbidden: %+v", out)
	}
	if out := call(ann, "files__new"); out.Approval != store.AuditHeld || !errors.Is(out.Err, tools.ErrHeld) {
		t.Errorf("held: %+v", out)
	}
	// The one token: a call the policy denies takes it (the limit comes
	// before the policy), so the next permitted call is limited.
	if out := call(ann, "files__rm"); out.Approval != store.AuditDenied || out.Outcome != store.OutcomeDenied {
		t.Errorf("denied: %+v", out)
	}
	var rate *gate.RateError
	if out := call(ann, "files__read"); !errors.As(out.Err, &rate) || out.Ran() {
		t.Errorf("limited: %+v", out)
	}
	// The local user (its own bucket, every tool): ok, a tool error, a
	// built-in tool's server label.
	local := gate.Local(gate.LocalUser)
	if out := call(local, "files__read"); out.Err != nil || out.Outcome != store.OutcomeOK || !out.Ran() {
		t.Errorf("ok: %+v", out)
	}
	if cat.calls != 1 {
		t.Errorf("the catalogue was called %d times, want 1", cat.calls)
	}

	got := map[string]string{}
	for id, r := range log.recs {
		res := log.results[id]
		got[r.User+" "+r.Tool] = fmt.Sprintf("%s %s %s %s %q %d", r.Server, r.Agent, res.Approval, res.Outcome, res.Error, res.ResultBytes)
	}
	want := map[string]string{
		"ann files__fail":   `files test forbidden denied "the caller's permissions do not include this tool" 0`,
		"ann files__new":    `files test held denied "tool files__new changed its definition since it was accepted; an admin must run ` + "`switchboard tools accept files__new`" + `" 0`,
		"ann files__rm":     `files test denied denied "the approval policy does not allow files__rm, so it was not called; an administrator can allow it with an approvals rule, for example {server: files, tool: files__rm, policy: ask}" 0`,
		"local files__read": `files test auto ok "" 7`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit mismatch (-want +got):\n%s", diff)
	}
	wantCounts := []string{
		"files__fail files denied", "files__new files denied", "files__rm files denied",
		"files__read files denied", "files__read files ok",
	}
	if diff := cmp.Diff(wantCounts, n.got); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
}

// TestCallOutcomes: how a call that ran ended, and how each surface kind
// without an Ask answers a call the policy asks about.
func TestCallOutcomes(t *testing.T) {
	log := &memAudit{recs: map[string]store.AuditRecord{}, results: map[string]store.AuditResult{}}
	cat := &catalog{entries: map[string]tools.Entry{
		"files__fail": entry("files__fail"), "files__hang": entry("files__hang"),
		"read_file": {Name: "read_file", Origin: tools.Origin{Kind: tools.KindBuiltin, Name: "read_file"}},
	}}
	g := gate.New(&gate.Options{Audit: log}) // default policy: unannotated tools ask
	local := gate.Local(gate.LocalUser)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		sf       gate.Surface
		tool     string
		cancel   bool
		outcome  store.Outcome
		approval store.AuditApproval
		server   string
	}{
		{"terminal approves", gate.Surface{Asking: gate.AskTerminal, Timeout: time.Minute}, "files__fail", false, store.OutcomeToolError, store.AuditApproved, "files"},
		{"cannot ask", gate.Surface{Asking: gate.AskRefuse}, "files__fail", false, store.OutcomeDenied, store.AuditUnavailable, "files"},
		{"asks and is declined", gate.Surface{Asking: gate.AskStored, Ask: func(context.Context, *gate.Request, tools.Entry) (store.AuditApproval, string) {
			return store.AuditDeclined, "no"
		}}, "files__fail", false, store.OutcomeDenied, store.AuditDeclined, "files"},
		{"own timeout", gate.Surface{Asking: gate.AskTerminal, Timeout: 10 * time.Millisecond}, "files__hang", false, store.OutcomeTimeout, store.AuditApproved, "files"},
		{"caller left", gate.Surface{Asking: gate.AskTerminal, Timeout: time.Minute}, "files__hang", true, store.OutcomeCancelled, store.AuditApproved, "files"},
		{"built-in server label", gate.Surface{Asking: gate.AskTerminal}, "read_file", false, store.OutcomeOK, store.AuditApproved, gate.BuiltinServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log.mu.Lock()
			clear(log.recs)
			clear(log.results)
			log.mu.Unlock()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if tc.cancel {
				time.AfterFunc(10*time.Millisecond, cancel)
			}
			sf := tc.sf
			sf.Catalog = cat
			out := g.Call(cctx, &sf, &gate.Request{Caller: &local, Name: tc.tool})
			if out.Outcome != tc.outcome || out.Approval != tc.approval {
				t.Errorf("result %s/%s, want %s/%s (%v)", out.Outcome, out.Approval, tc.outcome, tc.approval, out.Err)
			}
			for id, r := range log.recs {
				if res := log.results[id]; res.Outcome != tc.outcome || r.Server != tc.server {
					t.Errorf("record %s %s/%s, want %s %s", r.Server, res.Outcome, res.Approval, tc.server, tc.outcome)
				}
			}
			if len(log.recs) != 1 {
				t.Errorf("%d records, want 1", len(log.recs))
			}
		})
	}
}
