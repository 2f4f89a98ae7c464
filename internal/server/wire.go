package server

import (
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// The JSON shapes of the API's records. They are spelled here, apart from
// the store's Go records, so that a store change cannot silently change
// the API (the OpenAPI document describes these).

type conversationJSON struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	Agent     string        `json:"agent"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
	Messages  []messageJSON `json:"messages,omitempty"`
}

func toConversation(c store.Conversation) conversationJSON {
	return conversationJSON{ID: c.ID, Title: c.Title, Agent: c.Agent, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

type messageJSON struct {
	ID         string         `json:"id"`
	Seq        int64          `json:"seq"`
	Role       llm.Role       `json:"role"`
	Text       string         `json:"text"`
	Content    []llm.Part     `json:"content,omitempty"`
	ToolCalls  []llm.ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	ToolName   string         `json:"toolName,omitempty"`
	IsError    bool           `json:"isError,omitempty"`
	Agent      string         `json:"agent,omitempty"`
	RunID      string         `json:"runId,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	// SummaryOf > 0 marks the model's summary of messages 1..SummaryOf.
	SummaryOf int64 `json:"summaryOf,omitempty"`
}

func toMessage(m store.Message) messageJSON {
	return messageJSON{
		ID: m.ID, Seq: m.Seq, Role: m.Role, Text: m.Text(), Content: m.Content,
		ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError,
		Agent: m.Agent, RunID: m.RunID, CreatedAt: m.CreatedAt, SummaryOf: m.SummaryOf,
	}
}

type agentJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Model       string `json:"model"`
	Prompt      string `json:"prompt"`
	// Servers nil (JSON null) means every server.
	Servers   []string  `json:"servers"`
	Router    string    `json:"router"`
	Source    string    `json:"source,omitempty"`
	Version   int64     `json:"version,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

func toAgent(a store.Agent) agentJSON {
	return agentJSON{
		Name: a.Name, Description: a.Description, Model: a.Model, Prompt: a.Prompt, Servers: a.Servers,
		Router: a.Router, Source: a.Source, Version: a.Version, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

type approvalJSON struct {
	ID             string          `json:"id"`
	ConversationID string          `json:"conversationId,omitempty"`
	RunID          string          `json:"runId,omitempty"`
	CallID         string          `json:"callId,omitempty"`
	Tool           string          `json:"tool"`
	Server         string          `json:"server,omitempty"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	State          string          `json:"state"`
	Scope          string          `json:"scope,omitempty"`
	Reason         string          `json:"reason,omitempty"`
	DecidedBy      string          `json:"decidedBy,omitempty"`
	CreatedAt      time.Time       `json:"createdAt,omitzero"`
	ExpiresAt      time.Time       `json:"expiresAt,omitzero"`
}

func toApproval(a store.Approval) approvalJSON {
	return approvalJSON{
		ID: a.ID, ConversationID: a.ConversationID, RunID: a.RunID, CallID: a.CallID, Tool: a.Tool,
		Server: a.Server, Arguments: validJSON(a.Arguments), State: string(a.State), Scope: string(a.Scope),
		Reason: a.Reason, DecidedBy: a.DecidedBy, CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt,
	}
}

type auditJSON struct {
	ID             string          `json:"id"`
	Time           time.Time       `json:"time"`
	User           string          `json:"user"`
	ConversationID string          `json:"conversationId,omitempty"`
	Agent          string          `json:"agent,omitempty"`
	RunID          string          `json:"runId,omitempty"`
	Tool           string          `json:"tool"`
	Server         string          `json:"server,omitempty"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	Approval       string          `json:"approval,omitempty"`
	Outcome        string          `json:"outcome"`
	Error          string          `json:"error,omitempty"`
	DurationMS     int64           `json:"durationMs"`
	ResultBytes    int64           `json:"resultBytes"`
}

func toAudit(r store.AuditRecord) auditJSON {
	return auditJSON{
		ID: r.ID, Time: r.Time, User: r.User, ConversationID: r.ConversationID, Agent: r.Agent, RunID: r.RunID,
		Tool: r.Tool, Server: r.Server, Arguments: validJSON(r.Arguments), Approval: string(r.Approval),
		Outcome: string(r.Outcome), Error: r.Error, DurationMS: r.DurationMS, ResultBytes: r.ResultBytes,
	}
}

// validJSON returns b when it is valid JSON and nil otherwise, so that a
// malformed stored value cannot break the response's encoding.
func validJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}

// list wraps a list response: {"items":[...], "next":"cursor"}.
type list[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}
