package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// runtimeStore is the store as the agent runtime gets it: as it is, except
// that a conversation is created on its first message or approval, so a
// run may name a conversation nobody created yet (`switchboard chat
// --conversation ID`, a turn through the tools of an MCP client).
type runtimeStore struct{ store.Store }

// AppendMessages creates the conversation when needed, then appends.
func (s runtimeStore) AppendMessages(ctx context.Context, id string, msgs ...store.Message) ([]store.Message, error) {
	if err := ensureConversation(ctx, s.Store, store.Conversation{ID: id}); err != nil {
		return nil, err
	}
	return s.Store.AppendMessages(ctx, id, msgs...)
}

// CreateApproval creates the approval's conversation when needed, then the
// approval.
func (s runtimeStore) CreateApproval(ctx context.Context, a store.Approval) (store.Approval, error) {
	if err := ensureConversation(ctx, s.Store, store.Conversation{ID: a.ConversationID}); err != nil {
		return store.Approval{}, err
	}
	return s.Store.CreateApproval(ctx, a)
}

// ensureConversation creates c unless a conversation with its ID exists.
// Two processes racing to create it both succeed.
func ensureConversation(ctx context.Context, st store.Conversations, c store.Conversation) error {
	_, err := st.GetConversation(ctx, c.ID)
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := st.CreateConversation(ctx, c); err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("creating conversation %s: %w", c.ID, err)
	}
	return nil
}

// runtimeFeedStore is a runtimeStore whose store has a change feed: a call
// waiting for approval wakes when the approval is decided through another
// replica, rather than polling for it.
type runtimeFeedStore struct {
	runtimeStore
	store.Changes
}

// forRuntime wraps st for the agent runtime, keeping its change feed when
// the feed reaches every process on the database (PostgreSQL). SQLite's
// feed stays inside one process, while a decision may come from another
// one on the same file (the web UI of `serve` answering `switchboard
// chat`): there the runtime keeps polling.
func forRuntime(st store.Store, sh *replicas) agent.Approvals {
	if sh != nil {
		return runtimeFeedStore{runtimeStore{st}, sh.feed}
	}
	return runtimeStore{st}
}

var (
	_ store.Changes        = runtimeFeedStore{}
	_ agent.History        = runtimeStore{}
	_ agent.Approvals      = runtimeStore{}
	_ agent.ApprovalGetter = runtimeStore{}
)
