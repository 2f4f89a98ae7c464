package store

import "time"

// Usage is the token count of one agent run.
type Usage struct {
	// RunID identifies the run; recording the same RunID twice is ErrConflict.
	RunID          string
	ConversationID string
	Agent          string
	Model          string
	InputTokens    int64
	OutputTokens   int64
	// Router is the router's decision for the run ("tools", "chat", ...);
	// empty when the router did not run.
	Router     string
	StartedAt  time.Time
	FinishedAt time.Time
}

// UsageTotals sums the [Usage] records of one conversation.
type UsageTotals struct {
	Runs         int64
	InputTokens  int64
	OutputTokens int64
}
