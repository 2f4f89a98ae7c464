package server

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/users"
)

// The store as the routes use it, one small interface per route group, so
// that a route's reach is what its group declares and a test can pass a
// store that keeps only what it exercises. Methods behave as
// [store.Store] documents; every [store.Store] implements all of them.

// Conversations answers the /api/v1/conversations routes.
type Conversations interface {
	CreateConversation(ctx context.Context, c store.Conversation) (store.Conversation, error)
	GetConversation(ctx context.Context, id string) (store.Conversation, error)
	ListConversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, string, error)
	DeleteConversation(ctx context.Context, id string) error
	ListMessages(ctx context.Context, conversationID string, f store.MessageFilter) ([]store.Message, error)
}

// Agents answers the /api/v1/agents routes, the model list of /v1 (agents
// are models there) and, when no Ping is set, the readiness probe.
type Agents interface {
	CreateAgent(ctx context.Context, a store.Agent) (store.Agent, error)
	GetAgent(ctx context.Context, name string) (store.Agent, error)
	ListAgents(ctx context.Context) ([]store.Agent, error)
	UpdateAgent(ctx context.Context, a store.Agent) (store.Agent, error)
	DeleteAgent(ctx context.Context, name string) error
}

// AgentServers answers the routes that assign tool servers to an agent.
type AgentServers interface {
	AssignServer(ctx context.Context, agent, server string) (store.Agent, error)
	RemoveServer(ctx context.Context, agent, server string) (store.Agent, error)
}

// Approvals answers the /api/v1/approvals routes (deciding goes through
// the [Runner]).
type Approvals interface {
	GetApproval(ctx context.Context, id string) (store.Approval, error)
	ListPendingApprovals(ctx context.Context, f store.ApprovalFilter) ([]store.Approval, error)
}

// Audit answers the /api/v1/audit route (writing the trail is the gate's).
type Audit interface {
	ListAudit(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, error)
}

// Uploads answers the uploads routes and the uploads a message attaches.
type Uploads interface {
	CreateUpload(ctx context.Context, u store.Upload) (store.Upload, error)
	GetUpload(ctx context.Context, id string) (store.Upload, error)
	ListUploads(ctx context.Context, conversationID string) ([]store.Upload, error)
}

// Stores are the route groups' stores, all required. [StoresOf] fills
// them from one [store.Store]. The optional groups a store may keep (run
// events, a change feed) are [Options.RunLog] and [Options.Changes].
type Stores struct {
	Conversations Conversations
	Agents        Agents
	AgentServers  AgentServers
	Approvals     Approvals
	Audit         Audit
	Uploads       Uploads
	// Users is what authentication reads when [Options.Users] is nil.
	Users users.Source
}

// StoresOf returns every group served by st.
func StoresOf(st store.Store) Stores {
	return Stores{Conversations: st, Agents: st, AgentServers: st, Approvals: st, Audit: st, Uploads: st, Users: st}
}

func (s Stores) complete() bool {
	return s.Conversations != nil && s.Agents != nil && s.AgentServers != nil &&
		s.Approvals != nil && s.Audit != nil && s.Uploads != nil && s.Users != nil
}
