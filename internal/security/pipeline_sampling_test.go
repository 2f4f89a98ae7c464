package security

import (
	"net/http"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestSamplingCallbackGoesThroughTheGate: an MCP server's sampling request
// made during a tool call of an agent run is put to the run's person under
// the approval policy and audited like a call: declined, the model is not
// asked and the record says declined; approved, the record says approved
// and ok. Its permission and rate limit are those of the tool call it
// happens in.
func TestSamplingCallbackGoesThroughTheGate(t *testing.T) {
	for _, tc := range []struct {
		name         string
		decision     string
		wantApproval store.AuditApproval
		wantOutcome  store.Outcome
	}{
		{"declined", "deny", store.AuditDeclined, store.OutcomeDenied},
		{"approved", "approve", store.AuditApproved, store.OutcomeOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSurfaceStack(t)
			key := s.user(t, "hank", "test__*")
			convID, resp := s.postMessage(t, t.Context(), key, `please call test__sample {"text":"say hi"}`)
			defer resp.Body.Close()
			stream, _ := sseApprovals(resp.Body, func(id string) {
				a, err := s.st.GetApproval(t.Context(), id)
				if err != nil {
					t.Errorf("reading approval %s: %v", id, err)
					return
				}
				decision := "approve" // the tool call itself
				if a.Tool == "sampling:test" {
					decision = tc.decision
				}
				if code, b := s.do(t, key, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": decision}); code != http.StatusOK {
					t.Errorf("deciding approval %s: %d %s", id, code, b)
				}
			})
			recs := s.audit(t, "hank", "sampling:test")
			if len(recs) != 1 || recs[0].Approval != tc.wantApproval || recs[0].Outcome != tc.wantOutcome || recs[0].ConversationID != convID {
				t.Errorf("audit of the sampling request = %+v, want one record in the conversation, %s and %s\nstream:\n%s", recs, tc.wantApproval, tc.wantOutcome, stream)
			}
		})
	}
}
