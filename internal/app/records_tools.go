package app

import (
	"context"
	"errors"
	"iter"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/pin"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// The catalogue's, the agent's and the gate's records the command line
// shows, as their packages define them (aliases, not copies).
type (
	// ToolEntry is one tool of the catalogue as listed.
	ToolEntry = tools.Entry
	// ToolOrigin says where a tool comes from.
	ToolOrigin = tools.Origin
	// ToolAnnotations are a tool's hints (read-only, destructive, ...).
	ToolAnnotations = tools.Annotations
	// CallRequest is the arguments and progress hook of one tool call.
	CallRequest = tools.CallRequest
	// Progress is a tool call's progress report.
	Progress = tools.Progress
	// Result is a tool call's result; Content one item of it.
	Result = tools.Result
	// Content is one item of a tool result or prompt message.
	Content = tools.Content
	// CompleteRequest asks a prompt's owner for argument values
	// (completion/complete); CompleteRef names the prompt or template.
	CompleteRequest = tools.CompleteRequest
	CompleteRef     = tools.CompleteRef
	// Refusal is the gate's refusal of a call, with its reason.
	Refusal = gate.Refusal
	// PinSelection names the held tools to accept.
	PinSelection = pin.Selection
	// Message is a stored conversation message.
	Message = store.Message
	// RunRequest, RunEvent and Decision are an agent turn's request, its
	// events and a person's answer to an approval question.
	RunRequest = agent.Request
	RunEvent   = agent.Event
	Decision   = agent.Decision
	// ToolPreview is what a turn's manifest would hold (`tools --rank`);
	// PreviewTool one ranked tool of it, RankParts and RankMatch why it
	// ranks where it does.
	ToolPreview = agent.Preview
	PreviewTool = agent.PreviewTool
	RankParts   = rank.Parts
	RankMatch   = rank.Match
)

// The kinds of tool sources, the kinds of content, and the agent's own
// tool that finds deferred ones.
const (
	KindBuiltin         = tools.KindBuiltin
	KindMCP             = tools.KindMCP
	ContentText         = tools.ContentText
	ContentImage        = tools.ContentImage
	ContentAudio        = tools.ContentAudio
	ContentResource     = tools.ContentResource
	ContentResourceLink = tools.ContentResourceLink
	FindToolsName       = agent.FindToolsName
)

// IsHeld reports whether err refuses a tool that pinning holds.
func IsHeld(err error) bool { return errors.Is(err, tools.ErrHeld) }

// IsUnknownTool reports whether err says no tool has the name.
func IsUnknownTool(err error) bool { return errors.Is(err, tools.ErrNotFound) }

// IsUnavailable reports whether err says the tool's server is not ready.
func IsUnavailable(err error) bool { return errors.Is(err, tools.ErrUnavailable) }

// IsNotHeld reports whether err says a tool named for acceptance is not
// held.
func IsNotHeld(err error) bool { return errors.Is(err, pin.ErrNotHeld) }

// IsConflict reports whether err says the record changed meanwhile.
func IsConflict(err error) bool { return errors.Is(err, store.ErrConflict) }

// Tools lists the catalogue.
func (a *App) Tools() []ToolEntry { return a.registry.List() }

// Run runs one agent turn (the terminal chat).
func (a *App) Run(ctx context.Context, req *RunRequest) iter.Seq2[RunEvent, error] {
	return func(yield func(RunEvent, error) bool) {
		rt, err := a.Runtime(ctx)
		if err != nil {
			yield(RunEvent{}, err)
			return
		}
		for ev, err := range rt.Run(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// Decide answers a pending approval question of a turn.
func (a *App) Decide(ctx context.Context, id string, d Decision) error {
	rt, err := a.Runtime(ctx)
	if err != nil {
		return err
	}
	return rt.Decide(ctx, id, d)
}

// PreviewTools says what a turn of the agent (the assistant when "")
// would be offered for request, explaining the best explain tools.
func (a *App) PreviewTools(ctx context.Context, agentName, request string, explain int) (ToolPreview, error) {
	rt, err := a.Runtime(ctx)
	if err != nil {
		return ToolPreview{}, err
	}
	return rt.Preview(ctx, agentName, request, explain)
}
