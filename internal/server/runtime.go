package server

import (
	"context"
	"fmt"
	"iter"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// RuntimeRunner adapts an [*agent.Runtime] to [Runner]. catalog is the
// runtime's tool catalogue (the app's registry).
//
// agent.Request does not yet carry a per-run tool filter, a stateless
// history or client tools, so until it does the adapter refuses what it
// cannot honour rather than ignore it: a run whose Permit hides any
// catalogue tool (a restricted user), a stateless run with more than one
// user message of history, and a run with client tools all fail with 501
// and a message saying so. Unrestricted users, conversations and
// single-message chat completions run normally.
func RuntimeRunner(rt *agent.Runtime, catalog Catalog) Runner {
	return &runtimeRunner{rt: rt, catalog: catalog}
}

type runtimeRunner struct {
	rt      *agent.Runtime
	catalog Catalog
}

func (a *runtimeRunner) Decide(ctx context.Context, id string, d agent.Decision) error {
	return a.rt.Decide(ctx, id, d)
}

func (a *runtimeRunner) Run(ctx context.Context, req *RunRequest) iter.Seq2[agent.Event, error] {
	if err := a.check(req); err != nil {
		return func(yield func(agent.Event, error) bool) { yield(agent.Event{}, err) }
	}
	r := req.Request
	if req.Messages != nil {
		r.Message = lastUser(req.Messages)
	}
	return a.rt.Run(ctx, &r)
}

func notYet(what string) error {
	return errorf(http.StatusNotImplemented, "not_implemented", "%s is not supported by the agent runtime yet", what)
}

func (a *runtimeRunner) check(req *RunRequest) error {
	if len(req.ClientTools) > 0 {
		return notYet("running the client's own tools (request tools)")
	}
	if req.Messages != nil {
		users := 0
		for _, m := range req.Messages {
			switch m.Role {
			case llm.RoleUser:
				users++
			case llm.RoleSystem:
			default:
				users += 2 // assistant or tool history
			}
		}
		if users != 1 {
			return notYet("a chat completion with earlier turns (stateless history)")
		}
	}
	if req.Permit != nil {
		for _, e := range a.catalog.List() {
			if !req.Permit(e.Name) {
				return notYet(fmt.Sprintf("an agent run for a user whose permissions exclude tools (such as %s)", e.Name))
			}
		}
	}
	return nil
}

func lastUser(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Text()
		}
	}
	return ""
}
