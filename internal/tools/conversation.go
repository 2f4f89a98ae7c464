package tools

import "context"

// conversationKey marks a context with the conversation its tool calls
// are made in.
type conversationKey struct{}

// WithConversation returns a copy of ctx whose tool calls are made in the
// conversation id. The gate sets it on every call from the request's
// conversation (an agent run's stored conversation, or a label of the
// surface's own: an MCP session, a stateless chat completion), so that a
// tool scoped to a conversation (read_upload) reaches only what belongs
// to it.
func WithConversation(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, conversationKey{}, id)
}

// ConversationOf returns the conversation [WithConversation] set, or "".
func ConversationOf(ctx context.Context) string {
	id, _ := ctx.Value(conversationKey{}).(string)
	return id
}
