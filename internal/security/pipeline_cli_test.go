package security

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestCLICallGoesThroughTheGate: `switchboard call` is audited as the
// local user and follows the approval policy: a denied tool is refused
// and recorded so, without running.
func TestCLICallGoesThroughTheGate(t *testing.T) {
	s := newSurfaceStack(t)
	call := func(args ...string) (int, string) {
		r := switchboard(t, s.dir, append([]string{"call"}, args...)...)
		return r.code, r.stdout + r.stderr
	}
	if code, out := call("test__echo", echoArgs); code != 0 || !strings.Contains(out, toolMarker) {
		t.Fatalf("switchboard call test__echo: exit %d\n%s", code, out)
	}
	recs := s.audit(t, gate.LocalUser, "test__echo")
	if len(recs) != 1 || recs[0].Agent != "cli" || recs[0].Outcome != store.OutcomeOK || recs[0].Approval != store.AuditAutoApproved {
		t.Errorf("audit of the call = %+v, want one ok record by cli, auto-approved", recs)
	}
	if code, out := call("test__fail"); code != 2 || !strings.Contains(out, "approval policy does not allow") {
		t.Errorf("switchboard call of a denied tool: exit %d\n%s\nwant 2 and the policy's refusal", code, out)
	}
	recs = s.audit(t, gate.LocalUser, "test__fail")
	if len(recs) != 1 || recs[0].Approval != store.AuditDenied || recs[0].Outcome != store.OutcomeDenied {
		t.Errorf("audit of the denied call = %+v, want one denied record", recs)
	}
}
