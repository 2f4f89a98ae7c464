package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// ToolMode says how a model receives tools; it mirrors the model's
// configured tool mode, which the router's auto setting looks at.
type ToolMode string

const (
	ToolModeAuto   ToolMode = "auto"
	ToolModeNative ToolMode = "native"
	// ToolModeText marks a model that gets tools through the text protocol.
	// Such models are slow and error-prone with a long manifest, so the
	// router's auto setting runs the pre-check for them only.
	ToolModeText ToolMode = "text"
)

// Model is a configured model ready for use.
type Model struct {
	// Name is the configured name (what agents refer to).
	Name string
	// Provider answers requests; it already handles the text tool protocol
	// for models without native tool calling.
	Provider llm.Provider
	// ID is sent as [llm.Request.Model]; "" leaves it to the provider.
	ID            string
	ToolMode      ToolMode
	ContextWindow int
	// MaxTokens and Temperature are passed on; zero and nil mean the
	// provider's defaults.
	MaxTokens   int
	Temperature *float64
}

// Catalog is the part of [*tools.Registry] the runtime uses.
type Catalog interface {
	gate.Catalog // Lookup and Call
	List() []tools.Entry
}

var _ Catalog = (*tools.Registry)(nil)

// Limits bound one user turn. Zero fields mean the defaults below.
type Limits struct {
	// ToolCallsPerTurn caps the tool calls of one user turn, handoffs
	// included; default 10.
	ToolCallsPerTurn int
	// ParallelToolCalls caps the calls of one model step that run at once;
	// default 4.
	ParallelToolCalls int
	// CallTimeout bounds one tool call once it runs; default 60s.
	CallTimeout time.Duration
	// TurnTimeout bounds the whole turn, approvals included; default 10m.
	TurnTimeout time.Duration
	// ApprovalTimeout is how long an approval stays pending before it
	// counts as denied (expired); default 5m.
	ApprovalTimeout time.Duration
}

// Defaults of [Limits].
const (
	DefaultToolCallsPerTurn  = 10
	DefaultParallelToolCalls = 4
	DefaultCallTimeout       = 60 * time.Second
	DefaultTurnTimeout       = 10 * time.Minute
	DefaultApprovalTimeout   = 5 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.ToolCallsPerTurn <= 0 {
		l.ToolCallsPerTurn = DefaultToolCallsPerTurn
	}
	if l.ParallelToolCalls <= 0 {
		l.ParallelToolCalls = DefaultParallelToolCalls
	}
	if l.CallTimeout <= 0 {
		l.CallTimeout = DefaultCallTimeout
	}
	if l.TurnTimeout <= 0 {
		l.TurnTimeout = DefaultTurnTimeout
	}
	if l.ApprovalTimeout <= 0 {
		l.ApprovalTimeout = DefaultApprovalTimeout
	}
	return l
}

// ModelFunc resolves a configured model name; "" asks for the default
// model. The runtime calls it at the start of every agent run, so model
// changes apply on the next turn.
type ModelFunc func(name string) (Model, error)

// Options configure a [Runtime]. A nil *Options, and every nil or zero
// field, means the default.
type Options struct {
	// Assistant is the default agent (Request.Agent ""). Its Name is
	// ignored; its Servers filter the catalogue as for any agent, and it
	// also gets the agent-management tools.
	Assistant store.Agent
	// Agents are the named agents; nil means there are none, so nothing
	// is a mention.
	Agents Agents
	// History keeps conversations; nil keeps them in memory for the
	// Runtime's lifetime.
	History History
	// Approvals keeps approvals and conversation grants; nil keeps them in
	// memory.
	Approvals Approvals
	// Usage records each agent run's tokens and router decision; nil
	// records nothing.
	Usage  UsageRecorder
	Limits Limits
	// Logger receives warnings about failed writes; nil discards them.
	Logger *slog.Logger
	// Now is the clock for records; nil means time.Now. Timers (limits,
	// approval expiry) use the time package, so tests use testing/synctest.
	Now func() time.Time
	// ToolBudget is how many tools a model is offered at once. When an
	// agent may use more, it is offered the tools loaded earlier in the
	// conversation and the best-ranked of the rest for the request, up to
	// the budget, plus find_tools ([FindToolsName]), with which it finds
	// and loads the others mid-turn; loaded tools stay offered for the
	// rest of the conversation. Zero means [DefaultToolBudget]; a negative
	// value offers every tool.
	ToolBudget int
	// RankOptions, when set, returns the options of the retrieval index
	// (server instructions, embeddings). The index is rebuilt when the
	// catalogue changes or it returns another pointer, so return the same
	// one while nothing changed. Nil ranks by the tools' own text.
	RankOptions func(ctx context.Context) *rank.Options
	// QueryVector, when set, returns the embedding of a request for the
	// index's embeddings; nil (or a nil result) ranks by words alone.
	QueryVector func(ctx context.Context, text string) []float32
	// SummaryModel, when set, names the model that summarises the
	// conversations of the named agent ("" is the assistant) when they
	// outgrow the window, typically a cheaper one; it is asked at every
	// summary, so a changed configuration applies on the next one. Nil, or
	// "", summarises with the turn's own model.
	SummaryModel func(agent string) string
	// NewID returns approval ids when Approvals is nil, and run ids when a
	// request has none; nil means random ids.
	NewID func() string
}
