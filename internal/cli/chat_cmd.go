package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/cli/chat"
)

func newChatCmd(g *globals) *cobra.Command {
	var (
		prompt       string
		yes          bool
		conversation string
		agentName    string
		model        string
	)
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Chat with a model that uses the tool catalogue, in the terminal or for one prompt",
		Long: `Without -p: an interactive chat with streamed answers, a line per tool call,
and approval prompts (y approves once, a for the conversation, n denies).
Commands: /tools, /servers, /agents, /prompts, /server__prompt arg=value,
/new, /quit. Tab after @ completes a resource to attach.

With -p PROMPT: one turn without a terminal UI. The final answer goes to
stdout, tool activity to stderr; exit 0 on success, 1 on failure. A call that
needs approval is denied unless --yes is given. --conversation ID continues
that stored conversation (or starts one under that ID), so a script can hold a
conversation over several runs.

Write @name at the start of a word to hand the message to a named agent.`,
		Example: `  switchboard chat
  switchboard chat -p "what time is it in Tokyo?"
  switchboard chat -p "@bob check my 2 latest emails" --yes --conversation mail-1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if cfg.DefaultModel == "" && model == "" {
				return usageErr(app.ErrNoModel, app.NoModelHint)
			}
			if model != "" {
				if _, ok := cfg.Models[model]; !ok {
					return usageErr(fmt.Errorf("no model named %q", model), "`switchboard models` lists the configured models")
				}
			}
			a, err := g.startWith(cmd.Context(), cfg, nil)
			if err != nil {
				return err
			}
			defer a.Close()
			if _, err := a.Runtime(cmd.Context()); err != nil {
				return usageErr(err, "check database.url or the data directory (--data)")
			}
			feats, err := a.ChatFeatures(cmd.Context(), g.env.Getenv("USER"), nil)
			if err != nil {
				return err
			}
			b := &chatBackend{app: a, chatOfferings: chatOfferings{feats}}
			if agentName != "" {
				if _, ok, err := b.agentSpec(cmd.Context(), agentName); err != nil {
					return err
				} else if !ok {
					return usageErr(fmt.Errorf("no agent named %q", agentName), "configure it under agents, or leave --agent out for the assistant")
				}
			}
			opts := &chat.Options{
				ConversationID: conversation,
				Agent:          agentName,
				Model:          model,
				User:           g.env.Getenv("USER"),
				Stdout:         cmd.OutOrStdout(),
				Stderr:         cmd.ErrOrStderr(),
				Stdin:          cmd.InOrStdin(),
				Yes:            yes,
				Logger:         g.logger(cfg, slog.LevelWarn),
			}
			if prompt != "" {
				if code := chat.RunOnce(cmd.Context(), b, prompt, opts); code != 0 {
					return &exitError{code: code, err: errors.New("")}
				}
				return nil
			}
			return chat.RunTUI(cmd.Context(), b, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&prompt, "prompt", "p", "", "run one turn with this `prompt` and print the answer (no terminal UI)")
	f.BoolVar(&yes, "yes", false, "approve every tool call that needs approval")
	f.StringVar(&conversation, "conversation", "", "continue the stored conversation `id`, or start one under it")
	f.StringVar(&agentName, "agent", "", "talk to this named `agent` instead of the assistant")
	f.StringVar(&model, "model", "", "use this configured `model` for the turn")
	return cmd
}

// chatBackend gives the terminal chat the app's runtime and catalogue.
type chatBackend struct {
	app *app.App
	// chatOfferings are the prompts and resources (chat_features.go).
	chatOfferings
}

func (b *chatBackend) Run(ctx context.Context, req *app.RunRequest) iter.Seq2[app.RunEvent, error] {
	return b.app.Run(ctx, req)
}

func (b *chatBackend) Decide(ctx context.Context, id string, d app.Decision) error {
	return b.app.Decide(ctx, id, d)
}

func (b *chatBackend) Tools() []app.ToolEntry { return b.app.Tools() }

func (b *chatBackend) Servers() []chat.ServerLine {
	var out []chat.ServerLine
	for _, s := range b.app.Servers() {
		out = append(out, chat.ServerLine{Name: s.Name, Kind: string(s.Kind), State: s.State, Tools: s.Tools, LastError: s.LastError})
	}
	return out
}

func (b *chatBackend) Agents(ctx context.Context) ([]app.Agent, error) {
	return b.app.Agents(ctx)
}

func (b *chatBackend) History(ctx context.Context, id string) ([]app.Message, error) {
	return b.app.History(ctx, id)
}

func (b *chatBackend) agentSpec(ctx context.Context, name string) (app.Agent, bool, error) {
	list, err := b.app.Agents(ctx)
	if err != nil {
		return app.Agent{}, false, err
	}
	for _, s := range list {
		if s.Name == name {
			return s, true, nil
		}
	}
	return app.Agent{}, false, nil
}
