package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// sharedApprovals is a hand-written agent.Approvals with GetApproval, like
// a database several processes share.
type sharedApprovals struct {
	mu   sync.Mutex
	n    int
	byID map[string]store.Approval
}

func (s *sharedApprovals) CreateApproval(_ context.Context, a store.Approval) (store.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	a.ID = fmt.Sprint("ap", s.n)
	s.byID[a.ID] = a
	return a, nil
}

func (s *sharedApprovals) DecideApproval(_ context.Context, id string, d store.Decision) (store.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.byID[id]
	if !ok || a.State != store.ApprovalPending {
		return a, fmt.Errorf("deciding %s: %w", id, store.ErrConflict)
	}
	a.State, a.Scope, a.Reason, a.DecidedBy, a.Content = d.State, d.Scope, d.Reason, d.DecidedBy, d.Content
	s.byID[id] = a
	return a, nil
}

func (s *sharedApprovals) HasGrant(context.Context, string, string) (bool, error) { return false, nil }

func (s *sharedApprovals) GetApproval(_ context.Context, id string) (store.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id], nil
}

func (s *sharedApprovals) TakeApprovalContent(_ context.Context, id string) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.byID[id]
	c := a.Content
	a.Content = nil
	s.byID[id] = a
	return c, nil
}

// TestDecisionFromAnotherProcess runs a turn in one Runtime and decides its
// approval through another that shares the store.
func TestDecisionFromAnotherProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shared := &sharedApprovals{byID: map[string]store.Approval{}}
		var runs atomic.Int32
		fake := llmtest.NewFakeProvider(calls("c1", "delete", `{}`), say("done"))
		a := newEnv(t, fake, func(o *envOptions) { o.Approvals = shared })
		a.setTools(countingTool("delete", destructive, &runs))
		b := newEnv(t, llmtest.NewFakeProvider(), func(o *envOptions) { o.Approvals = shared })

		start := time.Now()
		evs := a.runDeciding(t, &agent.Request{Message: "delete"}, func(ap *store.Approval) *agent.Decision {
			if err := b.rt.Decide(t.Context(), ap.ID, agent.Decision{Kind: agent.Deny, Reason: "from b"}); err != nil {
				t.Errorf("deciding through b: %v", err)
			}
			return nil
		})
		if waited := time.Since(start); waited > agent.ApprovalPollInterval {
			t.Errorf("waited %s for a decision made elsewhere", waited)
		}
		res := find(evs, agent.EventApprovalResolved)
		if len(res) != 1 || res[0].Approval.State != store.ApprovalDenied || res[0].Approval.Reason != "from b" || runs.Load() != 0 {
			t.Errorf("resolved = %+v, runs %d", res, runs.Load())
		}
	})
}
