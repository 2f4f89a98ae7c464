package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// RunTUI runs the interactive chat until the user quits or ctx ends, and
// returns nil then. It reads keys from opts.Stdin and draws on
// opts.Stdout. A turn still running when it returns has been cancelled
// and waited for. With opts.ConversationID set, the conversation's
// earlier turns are shown first.
func RunTUI(ctx context.Context, b Backend, opts *Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, b, opts)
	defer m.stop()
	o := m.opts
	p := tea.NewProgram(m,
		tea.WithContext(ctx),
		tea.WithInput(o.Stdin),
		tea.WithOutput(o.Stdout),
		tea.WithWindowSize(o.Width, o.Height),
		// The caller's context carries SIGINT and SIGTERM; in raw mode
		// ctrl+c arrives as a key.
		tea.WithoutSignalHandler(),
	)
	_, err := p.Run()
	if m.turns > 0 {
		// The screen is gone; say how to come back to the conversation.
		fmt.Fprintf(o.Stderr, "conversation %s: continue with --conversation %s\n", m.conv, m.conv)
	}
	// A program killed by the caller's context is a normal end.
	if err != nil && (!errors.Is(err, tea.ErrProgramKilled) || ctx.Err() == nil) {
		return fmt.Errorf("running terminal chat: %w", err)
	}
	return nil
}

// model is the bubbletea model of the chat. Its fields are touched by the
// bubbletea goroutine only (Init, Update, View); a turn runs on a
// goroutine the model owns, which hands events over through a channel
// read by a tea.Cmd, and never touches the model.
type model struct {
	ctx  context.Context //nolint:containedctx // the chat's lifetime; turns and decisions derive from it
	b    Backend
	opts Options
	th   theme
	// given is whether the caller named the conversation (load its history).
	given bool
	conv  string

	width, height int
	input         textarea.Model
	vp            viewport.Model
	spin          spinner.Model
	md            markdown
	dark          bool

	entries []*entry
	// content is the transcript as last given to the viewport.
	content string
	// calls maps a running turn's call ids to their transcript lines.
	calls map[string]*entry
	// answer is the answer being streamed, nil between answers.
	answer *entry

	turn  *turnRun
	turns int // number of turns started, for turn ids
	// approvals are the requests waiting for y/a/n, oldest first.
	approvals []*store.Approval
	// reason is set while the user types why a call is denied.
	reason bool
	// elicit is the server's question being answered when the head of
	// approvals is one (elicit.go), nil otherwise.
	elicit *elicitation

	// sent are this session's messages, for up-arrow; recall is the index
	// shown (len(sent) when none).
	sent   []string
	recall int

	// quitArmed is set by a ctrl+c that cancelled or cleared something:
	// the next one quits.
	quitArmed bool
	// spinning is whether a spinner tick is scheduled.
	spinning bool
	// renderDue is whether a render tick is scheduled.
	renderDue bool
	// throttle is how often a streaming answer is rendered again.
	throttle time.Duration
	now      func() time.Time
	quitting bool
}

// renderThrottle bounds markdown rendering of a streaming answer: a long
// answer costs milliseconds to render, and deltas arrive far more often.
const renderThrottle = 80 * time.Millisecond

func newModel(ctx context.Context, b Backend, opts *Options) *model {
	given := opts != nil && opts.ConversationID != ""
	o := opts.withDefaults()
	m := &model{
		ctx: ctx, b: b, opts: o, th: newTheme(), given: given, conv: o.ConversationID,
		width: o.Width, height: o.Height, dark: true,
		calls: map[string]*entry{}, throttle: renderThrottle, now: time.Now,
	}
	m.input = textarea.New()
	m.input.Placeholder = "Ask anything, or /help"
	m.input.ShowLineNumbers = false
	m.input.Prompt = "┃ "
	m.input.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	m.input.SetHeight(3)
	// A steady cursor: blinking redraws the screen twice a second and
	// leaves a timer goroutine behind at every key press.
	st := m.input.Styles()
	st.Cursor.Blink = false
	m.input.SetStyles(st)
	m.input.Focus()
	m.vp = viewport.New()
	m.vp.KeyMap = viewport.KeyMap{} // keys go to the input; pgup/pgdown are handled here
	m.spin = spinner.New(spinner.WithSpinner(spinner.Dot))
	m.layout()
	return m
}

// Init loads the conversation's history when one was named, and asks the
// terminal for its background colour to choose the markdown style.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.given {
		cmds = append(cmds, m.loadHistory(m.conv))
	} else {
		m.note(fmt.Sprintf("new conversation %s — /help for commands", m.conv))
	}
	return tea.Batch(cmds...)
}

// historyMsg carries a conversation's stored messages.
type historyMsg struct {
	conv string
	msgs []store.Message
	err  error
}

func (m *model) loadHistory(conv string) tea.Cmd {
	ctx, b := m.ctx, m.b
	return func() tea.Msg {
		msgs, err := b.History(ctx, conv)
		return historyMsg{conv: conv, msgs: msgs, err: err}
	}
}

// stop cancels a running turn and waits for its goroutine.
func (m *model) stop() {
	if m.turn != nil {
		m.turn.cancel()
		<-m.turn.done
		m.turn = nil
	}
}

// layout sizes the parts to the terminal.
func (m *model) layout() {
	m.input.SetWidth(m.width)
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(max(m.height-m.input.Height()-m.statusHeight()-1, 3))
	if m.md.set(max(m.width-4, 20), m.dark) {
		for _, e := range m.entries {
			if e.kind == entryAnswer {
				e.dirty, e.stable, e.stableLen = true, "", 0
			}
		}
	}
}
