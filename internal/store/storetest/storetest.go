// Package storetest is the conformance suite for store.Store: every dialect
// runs [Run] from its tests, so SQLite and PostgreSQL behave the same way.
// Only tests may import it.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Run runs the conformance suite. open must return a new, empty store each
// time it is called; Run closes it when the subtest ends (Close is
// idempotent, so open may also register its own cleanup). Subtests run in
// parallel.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Conversations", testConversations},
		{"ConversationPaging", testConversationPaging},
		{"ChosenConversationID", testChosenConversationID},
		{"Messages", testMessages},
		{"MessageRoundTrip", testMessageRoundTrip},
		{"ConcurrentAppends", testConcurrentAppends},
		{"DeleteCascades", testDeleteCascades},
		{"Agents", testAgents},
		{"AgentServers", testAgentServers},
		{"ConcurrentAssign", testConcurrentAssign},
		{"Approvals", testApprovals},
		{"ConcurrentDecide", testConcurrentDecide},
		{"ApprovalExpiry", testApprovalExpiry},
		{"ExpireApproval", testExpireApproval},
		{"ApprovalContent", testApprovalContent},
		{"ApprovalUser", testApprovalUser},
		{"AuditUserID", testAuditUserID},
		{"Grants", testGrants},
		{"Usage", testUsage},
		{"Audit", testAudit},
		{"AuditFilters", testAuditFilters},
		{"InterruptRunning", testInterruptRunning},
		{"ConcurrentAudit", testConcurrentAudit},
		{"RacingFinish", testRacingFinish},
		{"CancelledAudit", testCancelledAudit},
		{"Users", testUsers},
		{"UserRoles", testUserRoles},
		{"Pins", testPins},
		{"ConcurrentPins", testConcurrentPins},
		{"Times", testTimes},
		{"LargeArguments", testLargeArguments},
		{"OddArguments", testOddArguments},
		{"OddText", testOddText},
		{"RunLog", testRunLog},
		{"MCPAnswers", testMCPAnswers},
		{"ConfigEntries", testConfigEntries},
		{"UserCredentials", testUserCredentials},
		{"UpstreamAuthStates", testUpstreamAuthStates},
		{"ConcurrentConfigUpdate", testConcurrentConfigUpdate},
		{"OAuth", testOAuth},
		{"OAuthReplay", testOAuthReplay},
		{"WebSessions", testWebSessions},
		{"Identities", testIdentities},
		{"Uploads", testUploads},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

// wantErr fails t unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
	}
}

// must fails t now when err is not nil.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// diff reports a mismatch between want and got.
func diff(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// ignoreTimes leaves store-assigned times out of a comparison.
var ignoreTimes = cmpopts.IgnoreTypes(time.Time{})

// checkTime fails t unless got is in UTC and within the window the call ran in.
func checkTime(t *testing.T, what string, got, before, after time.Time) {
	t.Helper()
	if got.Location() != time.UTC {
		t.Errorf("%s = %v: not in UTC", what, got)
	}
	if got.Before(before.Truncate(time.Microsecond)) || got.After(after) {
		t.Errorf("%s = %v: not between %v and %v", what, got, before, after)
	}
}

func ctx(t *testing.T) context.Context { return t.Context() }

func isConflict(err error) bool { return errors.Is(err, store.ErrConflict) }
