package store

import (
	"context"
	"encoding/json"
	"time"
)

// TopicMCPAnswers changes when an MCP client's answer to a question asked
// by the gateway is relayed for another replica; Key is
// [MCPAnswer.WatchKey] of the answer.
const TopicMCPAnswers Topic = "mcp_answers"

// MCPAnswer is one JSON-RPC response of an MCP client (its answer to an
// elicitation request) that reached a replica other than the one waiting
// for it. The replica that received it stores it; the one holding the
// session takes it and delivers it as if the POST had arrived there.
type MCPAnswer struct {
	// Session is the SDK's ID of the MCP session (without the signature).
	Session string
	// Target names the session object that asked: "" for the session the
	// SDK holds on the replica that created it, otherwise the prefix of the
	// request IDs of a session re-created for one call.
	Target string
	// Body is the JSON-RPC response, as the client sent it.
	Body json.RawMessage
	// CreatedAt is when it was relayed; answers nobody took within
	// [MCPAnswerTTL] are dropped.
	CreatedAt time.Time
}

// MCPAnswerTTL is how long a relayed answer waits to be taken: longer
// than any approval question stays open.
const MCPAnswerTTL = time.Hour

// WatchKey is the change-feed key of answers for session and target.
func WatchKey(session, target string) string { return session + "/" + target }

// Validate reports whether a can be relayed, as an [ErrInvalid] error.
func (a *MCPAnswer) Validate() error {
	if a.Session == "" || len(a.Body) == 0 || !json.Valid(a.Body) {
		return invalidf("mcp answer: a session and a JSON body must be set")
	}
	return nil
}

// MCPAnswers relays MCP clients' answers between replicas.
type MCPAnswers interface {
	// PutMCPAnswer stores a and announces it on [TopicMCPAnswers]; it also
	// drops answers older than [MCPAnswerTTL].
	PutMCPAnswer(ctx context.Context, a MCPAnswer) error
	// TakeMCPAnswers removes and returns the answers for session and
	// target, oldest first. Each answer is taken once, by one caller.
	TakeMCPAnswers(ctx context.Context, session, target string) ([]MCPAnswer, error)
}
