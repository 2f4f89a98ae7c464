package security

import (
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// toolMarker is echoed back by test__echo, so a caller that saw the tool's
// answer can tell it from a refusal.
const toolMarker = "zebra-42"

const echoArgs = `{"text":"` + toolMarker + `"}`

func waitTick() <-chan time.Time { return time.After(50 * time.Millisecond) }

// TestSurfacesControls runs every surface against every control of the
// gate: a surface added without the gate fails here. Each row gets its own
// stack (app, SQLite file, MCP server), so limits and records do not mix.
//
// Tools of the test server: test__echo is read-only (the default policy
// allows it), test__add has no annotations (the default policy asks).
func TestSurfacesControls(t *testing.T) {
	controls := []struct {
		name string
		run  func(t *testing.T, sf surface)
	}{
		{"not permitted", controlForbidden},
		{"over the rate limit", controlRateLimit},
		{"needs approval, declined", controlApproval},
		{"is audited", controlAudited},
	}
	for _, sf := range surfaces {
		for _, c := range controls {
			t.Run(sf.name+"/"+c.name, func(t *testing.T) { c.run(t, sf) })
		}
	}
}

// auditUser is the user the audit records of sf's calls by name carry.
func auditUser(sf surface, name string) string {
	if sf.local {
		return gate.LocalUser
	}
	return name
}

func controlForbidden(t *testing.T, sf surface) {
	if sf.local {
		t.Skip("the stdio caller is the person who started Switchboard, who may call every tool")
	}
	s := newSurfaceStack(t)
	read, ask := sf.readCall(), sf.askCall()
	key := sf.user(t, s, "bob", read.name)
	if sf.call(t, s, key, ask.name, ask.args) {
		t.Fatal("a tool outside the user's permissions ran")
	}
	recs := s.audit(t, "bob", ask.name)
	if len(recs) != 1 || recs[0].Approval != store.AuditForbidden || recs[0].Outcome != store.OutcomeDenied {
		t.Errorf("audit = %+v, want one record, forbidden and denied", recs)
	}
}

func controlRateLimit(t *testing.T, sf surface) {
	s := newSurfaceStack(t)
	read := sf.readCall()
	key := sf.user(t, s, "carol", "*")
	got := sf.calls(t, s, key, read.name, read.args, 2)
	if !got[0] {
		t.Fatal("the first call was refused")
	}
	if got[1] {
		t.Fatalf("a second call within the burst of one ran: %+v", s.audit(t, auditUser(sf, "carol"), ""))
	}
	ran := 0
	for _, r := range s.audit(t, auditUser(sf, "carol"), read.name) {
		if r.Outcome == store.OutcomeOK {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("%d calls ran, want 1", ran)
	}
}

func controlApproval(t *testing.T, sf surface) {
	s := newSurfaceStack(t)
	ask := sf.askCall()
	key := sf.user(t, s, "dave", "*")
	if sf.call(t, s, key, ask.name, ask.args) {
		t.Fatal("a call the person declined ran")
	}
	recs := s.audit(t, auditUser(sf, "dave"), ask.name)
	// A chat completion cannot ask anyone: the call is refused as denied.
	want := store.AuditDeclined
	if sf.name == "chat completions" {
		want = store.AuditDenied
	}
	if len(recs) != 1 || recs[0].Approval != want || recs[0].Outcome != store.OutcomeDenied {
		t.Errorf("audit = %+v, want one record, %s and denied", recs, want)
	}
	pending, err := s.st.ListPendingApprovals(t.Context(), store.ApprovalFilter{})
	if err != nil || len(pending) != 0 {
		t.Errorf("pending approvals left: %+v, %v", pending, err)
	}
}

func controlAudited(t *testing.T, sf surface) {
	s := newSurfaceStack(t)
	read := sf.readCall()
	key := sf.user(t, s, "erin", "*")
	if !sf.call(t, s, key, read.name, read.args) {
		t.Fatal("the call was refused")
	}
	recs := s.audit(t, auditUser(sf, "erin"), read.name)
	if len(recs) != 1 || recs[0].Outcome != store.OutcomeOK || recs[0].Approval != store.AuditAutoApproved || recs[0].Tool != read.name {
		t.Errorf("audit = %+v, want one record of %s, auto-approved and ok", recs, read.name)
	}
	// The record names the user by ID too (the local user has none).
	if wantID := s.ids["erin"]; len(recs) == 1 && !sf.local && recs[0].UserID != wantID {
		t.Errorf("the record's user ID is %q, want %q", recs[0].UserID, wantID)
	}
	if sf.agent != "" && len(recs) == 1 && recs[0].Agent != sf.agent {
		t.Errorf("the call was made by agent %q, want %q", recs[0].Agent, sf.agent)
	}
}
