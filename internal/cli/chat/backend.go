package chat

import (
	"context"
	"crypto/rand"
	"io"
	"iter"
	"log/slog"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Backend is what the chat needs from the rest of Switchboard. An
// [*agent.Runtime] provides Run and Decide; the app provides the rest.
// Implementations must be safe for concurrent use: the interactive chat
// calls Decide and the listing methods while a run is streaming.
type Backend interface {
	// Run runs one user turn, as [agent.Runtime.Run] does: the stream ends
	// after an [agent.EventDone], or with an error; cancelling ctx ends it
	// promptly.
	Run(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error]
	// Decide answers a pending approval, as [agent.Runtime.Decide] does.
	Decide(ctx context.Context, approvalID string, d agent.Decision) error
	// Tools returns the catalogue, for /tools.
	Tools() []tools.Entry
	// Servers returns every source of tools and its state, for /servers.
	Servers() []ServerLine
	// Agents returns the named agents, for /agents.
	Agents(ctx context.Context) ([]store.Agent, error)
	// History returns the stored messages of a conversation, oldest first;
	// none for a conversation that does not exist yet.
	History(ctx context.Context, conversationID string) ([]store.Message, error)
}

// ServerLine is one source of tools as /servers shows it.
type ServerLine struct {
	Name string
	// Kind is "builtin", "mcp" or "openapi".
	Kind string
	// State is the server's state as the app spells it ("ready", "failed",
	// "disabled", ...).
	State     string
	Tools     int
	LastError string
}

// Options configure [RunOnce] and [RunTUI]. A nil *Options or a zero
// field means the default given with the field.
type Options struct {
	// ConversationID continues that stored conversation, or starts a new
	// one under that id; "" starts a new conversation with an id from
	// NewConversationID.
	ConversationID string
	// Agent is the agent spoken to; "" is the default assistant.
	Agent string
	// Model overrides the agent's model; "" keeps it.
	Model string
	// User is recorded as who sent the messages and who decided approvals.
	User string
	// NewConversationID returns the id of a new conversation (at start
	// and on /new); nil means random ids.
	NewConversationID func() string
	// Stdout receives the answer (one-shot) or the terminal UI; nil
	// discards. Stderr receives tool activity and errors; nil discards.
	Stdout, Stderr io.Writer
	// Stdin is the terminal UI's input; nil means no input.
	Stdin io.Reader
	// Yes approves every call that needs approval (`--yes`). Without it
	// the one-shot mode denies such calls and the terminal UI asks.
	Yes bool
	// Width and Height are the screen size when Stdout is not a terminal
	// (a terminal reports its own); 0 means 80 by 24.
	Width, Height int
	// Logger receives warnings (a decision that could not be recorded);
	// nil discards them.
	Logger *slog.Logger
}

// defaultWidth and defaultHeight are used when neither Options nor the
// terminal say.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// withDefaults returns a copy of o with every default filled in.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.NewConversationID == nil {
		c.NewConversationID = rand.Text
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	if c.Width <= 0 {
		c.Width = defaultWidth
	}
	if c.Height <= 0 {
		c.Height = defaultHeight
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ConversationID == "" {
		c.ConversationID = c.NewConversationID()
	}
	return c
}

// denyReason is what the model hears when a one-shot run could not ask.
const denyReason = "not approved: run with --yes to approve tool calls"

// decider names who decided an approval, for the record.
func (o *Options) decider() string {
	if o.User != "" {
		return o.User
	}
	return "switchboard chat"
}

// Offerings is an optional capability of a Backend: the MCP servers'
// prompts and resources as the person at the terminal may use them, for
// /prompts, /server__prompt, @ completion and attachments. The app fills
// it from the gate's checked view, so what is listed, run and read is
// permitted and audited as on /mcp. A Backend without it has no prompts
// and no resources.
type Offerings interface {
	// Prompts lists the prompts the person may run, named server__prompt.
	Prompts(ctx context.Context) ([]Prompt, error)
	// Resources lists the resources the person may attach, by URI.
	Resources(ctx context.Context) ([]Resource, error)
	// Complete returns values the server offers for a prompt's argument.
	Complete(ctx context.Context, req CompleteRequest) ([]string, error)
	// Expand fills req from what the person added to the turn: the
	// prompt run (its messages become req.Message and req.Prelude) and
	// the resources read and attached (req.Attachments).
	Expand(ctx context.Context, req *agent.Request, add *Additions) error
}
