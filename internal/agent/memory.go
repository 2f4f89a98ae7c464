package agent

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// memHistory is the History used when none is configured: conversations
// live as long as the Runtime.
type memHistory struct {
	mu    sync.Mutex
	convs map[string][]store.Message // guarded by mu
}

func newMemHistory() *memHistory { return &memHistory{convs: map[string][]store.Message{}} }

func (h *memHistory) ListMessages(_ context.Context, id string, _ store.MessageFilter) ([]store.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.convs[id]), nil
}

func (h *memHistory) AppendMessages(_ context.Context, id string, msgs ...store.Message) ([]store.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.convs[id] = append(h.convs[id], msgs...)
	return msgs, nil
}

// memApprovals is the Approvals store used when none is configured. It
// keeps the store's rules: one decision per approval, none after
// ExpiresAt, and a grant for an approval for the conversation.
type memApprovals struct {
	newID func() string
	now   func() time.Time

	mu     sync.Mutex
	byID   map[string]store.Approval // guarded by mu
	grants map[[2]string]bool        // conversation, tool; guarded by mu
}

func newMemApprovals(newID func() string, now func() time.Time) *memApprovals {
	return &memApprovals{newID: newID, now: now, byID: map[string]store.Approval{}, grants: map[[2]string]bool{}}
}

func (m *memApprovals) CreateApproval(_ context.Context, a store.Approval) (store.Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a.ID == "" {
		a.ID = m.newID()
	}
	if _, dup := m.byID[a.ID]; dup {
		return store.Approval{}, fmt.Errorf("creating approval %s: the id is taken: %w", a.ID, store.ErrConflict)
	}
	a.State = store.ApprovalPending
	m.byID[a.ID] = a
	return a, nil
}

func (m *memApprovals) DecideApproval(_ context.Context, id string, d store.Decision) (store.Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.byID[id]
	if !ok {
		return store.Approval{}, fmt.Errorf("deciding approval %s: %w", id, store.ErrNotFound)
	}
	if a.State != store.ApprovalPending || !a.ExpiresAt.IsZero() && !m.now().Before(a.ExpiresAt) {
		return store.Approval{}, fmt.Errorf("deciding approval %s: it is %s: %w", id, a.State, store.ErrConflict)
	}
	a.State, a.Scope, a.Reason, a.DecidedBy, a.DecidedAt = d.State, d.Scope, d.Reason, d.DecidedBy, m.now()
	m.byID[id] = a
	if a.State == store.ApprovalApproved && a.Scope == store.ScopeConversation {
		m.grants[[2]string{a.ConversationID, a.Tool}] = true
	}
	return a, nil
}

func (m *memApprovals) HasGrant(_ context.Context, conv, tool string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.grants[[2]string{conv, tool}], nil
}

func (m *memApprovals) ExpireApproval(_ context.Context, id, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.byID[id]
	if !ok {
		return fmt.Errorf("expiring approval %s: %w", id, store.ErrNotFound)
	}
	if a.State != store.ApprovalPending {
		return fmt.Errorf("expiring approval %s: it is %s: %w", id, a.State, store.ErrConflict)
	}
	a.State, a.Reason = store.ApprovalExpired, reason
	m.byID[id] = a
	return nil
}

var (
	_ History         = (*memHistory)(nil)
	_ Approvals       = (*memApprovals)(nil)
	_ ApprovalExpirer = (*memApprovals)(nil)
)
