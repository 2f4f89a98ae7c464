package tools

import "encoding/json"

// ElicitRequest is an MCP server asking the user for input while one of its
// tools runs (elicitation/create), in neutral form. mcphost receives it from
// a server; the agent runtime puts it to the user of the conversation.
type ElicitRequest struct {
	// Server is the configured name of the MCP server asking.
	Server string
	// ConversationID, when known, names the conversation to ask in; ""
	// means the conversation whose tool call on Server is running.
	ConversationID string
	Message        string
	// Mode is "form" (Schema says what to ask) or "url" (send the user to
	// URL).
	Mode string
	// Schema is the requested JSON Schema (a flat object of primitives) in
	// form mode.
	Schema json.RawMessage
	URL    string
	// ElicitationID is the server's id of a URL-mode elicitation, which its
	// notifications/elicitation/complete names.
	ElicitationID string
}

// Elicitation actions, as MCP spells them.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResult is the user's answer: Action is one of the Elicit* actions;
// Content holds the form values when accepted.
type ElicitResult struct {
	Action  string
	Content map[string]any
}
