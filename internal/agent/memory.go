package agent

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// memHistory is the History used when none is configured: conversations
// live as long as the Runtime.
type memHistory struct {
	mu    sync.Mutex
	convs map[string][]Message // guarded by mu
}

func newMemHistory() *memHistory { return &memHistory{convs: map[string][]Message{}} }

func (h *memHistory) Load(_ context.Context, id string) ([]Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.convs[id]), nil
}

func (h *memHistory) Append(_ context.Context, id string, msgs ...Message) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.convs[id] = append(h.convs[id], msgs...)
	return nil
}

// memApprovals is the ApprovalStore used when none is configured.
type memApprovals struct {
	newID func() string
	now   func() time.Time

	mu     sync.Mutex
	byID   map[string]Approval // guarded by mu
	grants map[[2]string]bool  // conversation, tool; guarded by mu
}

func newMemApprovals(newID func() string, now func() time.Time) *memApprovals {
	return &memApprovals{newID: newID, now: now, byID: map[string]Approval{}, grants: map[[2]string]bool{}}
}

func (m *memApprovals) CreateApproval(_ context.Context, a Approval) (Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a.ID == "" {
		a.ID = m.newID()
	}
	if _, dup := m.byID[a.ID]; dup {
		return Approval{}, fmt.Errorf("creating approval %s: the id is taken", a.ID)
	}
	a.State = StatePending
	m.byID[a.ID] = a
	return a, nil
}

func (m *memApprovals) DecideApproval(_ context.Context, id string, d Approval) (Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.byID[id]
	if !ok || a.State != StatePending || !a.ExpiresAt.IsZero() && !m.now().Before(a.ExpiresAt) {
		return Approval{}, fmt.Errorf("deciding approval %s: %w", id, ErrNotPending)
	}
	a.State, a.Conversation, a.Reason, a.DecidedBy = d.State, d.Conversation, d.Reason, d.DecidedBy
	m.byID[id] = a
	if a.State == StateApproved && a.Conversation {
		m.grants[[2]string{a.ConversationID, a.Tool}] = true
	}
	return a, nil
}

func (m *memApprovals) HasGrant(_ context.Context, conv, tool string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.grants[[2]string{conv, tool}], nil
}

func (m *memApprovals) ExpireApproval(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.byID[id]
	if !ok || a.State != StatePending {
		return fmt.Errorf("expiring approval %s: %w", id, ErrNotPending)
	}
	a.State = StateExpired
	m.byID[id] = a
	return nil
}

var _ ApprovalExpirer = (*memApprovals)(nil)
