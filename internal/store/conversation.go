package store

import (
	"time"

	"github.com/google/uuid"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// NewID returns a new UUID version 7 string. Such IDs sort by creation time,
// which keeps index inserts local and makes IDs a stable tie-breaker.
// It is safe for concurrent use.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// Conversation is one chat thread. Its messages are [Message] records.
type Conversation struct {
	// ID is assigned by the store when empty. A caller may choose it
	// (`switchboard chat --conversation ID`): get it first, and create it
	// under that ID on ErrNotFound; ErrConflict from the create means another
	// process created it meanwhile, so get it again.
	ID    string
	Title string
	// Agent is the agent the conversation started with; empty means the
	// default assistant.
	Agent string
	// User is the owning user's name; empty for single-user use.
	User      string
	CreatedAt time.Time
	// UpdatedAt moves forward when messages are appended or the title changes.
	UpdatedAt time.Time
}

// ConversationFilter selects conversations for ListConversations.
type ConversationFilter struct {
	// User restricts the list to one user's conversations; empty means
	// conversations whose User is empty, not everyone's.
	User string
	// Limit caps the page size; zero means 50, and more than 1000 means 1000.
	Limit int
	// Cursor continues after the last conversation of a previous page; it is
	// the next value that page returned. Empty starts at the newest.
	Cursor string
}

// MaxLimit bounds every list method's page size.
const MaxLimit = 1000

// PageSize returns limit clamped to [1, MaxLimit], with def for zero or less.
func PageSize(limit, def int) int {
	switch {
	case limit <= 0:
		return def
	case limit > MaxLimit:
		return MaxLimit
	}
	return limit
}

// Message is one stored turn of a conversation: an [llm.Message] plus where
// and when it was said.
type Message struct {
	// ID is assigned by the store.
	ID             string
	ConversationID string
	// Seq is the message's position in its conversation: 1 for the first,
	// then consecutive integers without gaps or repeats, even when several
	// processes append at once. It is assigned by the store.
	Seq int64
	llm.Message
	// Agent is the agent that spoke (assistant and tool messages); empty for
	// the default assistant and for user messages.
	Agent string
	// RunID groups the messages of one agent run; see [Usage.RunID].
	RunID string
	// CreatedAt is set to now by the store when zero.
	CreatedAt time.Time
	// SummaryOf, when > 0, marks the message as the model's summary of
	// the conversation's messages up to and including Seq SummaryOf,
	// written when the conversation outgrew a model's context window;
	// model requests carry it in their place. The summarised messages
	// stay stored.
	SummaryOf int64
}

// MessageFilter selects messages for ListMessages.
type MessageFilter struct {
	// AfterSeq skips messages with Seq <= AfterSeq; zero starts at the first.
	AfterSeq int64
	// Limit caps the number returned; zero means no cap.
	Limit int
}
