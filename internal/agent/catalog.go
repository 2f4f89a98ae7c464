package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// catalog is the tools one agent run offers the model.
type catalog struct {
	specs   []llm.ToolSpec
	entries map[string]tools.Entry
	// own marks the assistant's agent-management tools, which are called
	// directly rather than through the shared catalogue.
	own map[string]bool
	// client marks the caller's own tools ([Request.ClientTools]), which
	// the runtime never calls.
	client map[string]bool
	// find, when set, is the run's deferred catalogue: specs then hold
	// only part of entries, plus find_tools.
	find *deferral
}

// catalogFor lists the tools spec may use: the catalogue filtered by the
// agent's servers and by what the gate lets caller see, plus the
// agent-management tools for the assistant and the client tools given. It
// is built at every run, so assignments apply on the agent's next turn.
func (r *Runtime) catalogFor(spec store.Agent, caller *gate.Caller, client []llm.ToolSpec) catalog {
	all := r.tools.List()
	c := catalog{entries: make(map[string]tools.Entry, len(all)+len(r.own))}
	allowed := func(e tools.Entry) bool { return r.gate.Visible(context.Background(), caller, e) }
	add := func(e tools.Entry) {
		c.entries[e.Name] = e
		c.specs = append(c.specs, llm.ToolSpec{Name: e.Name, Description: e.Info.Description, Parameters: e.Info.InputSchema})
	}
	assistant := spec.Name == ""
	if assistant && len(r.own) > 0 {
		c.own = make(map[string]bool, len(r.own))
		for _, e := range r.own {
			c.own[e.Name] = true
		}
	}
	if len(client) > 0 {
		c.client = make(map[string]bool, len(client))
		for _, s := range client {
			c.client[s.Name] = true
		}
	}
	for _, e := range all {
		// The assistant's own tools keep their names; a catalogue tool
		// with the same name is hidden from the assistant. Client tools
		// were checked against the catalogue at the start of the run; one
		// that appeared since is hidden too, so a name means one tool.
		if c.own[e.Name] || c.client[e.Name] || !allowed(e) {
			continue
		}
		if spec.Servers == nil || slices.Contains(spec.Servers, serverOf(e)) {
			add(e)
		}
	}
	if assistant {
		for _, e := range r.own {
			if !allowed(e) {
				delete(c.own, e.Name)
				continue
			}
			add(e)
		}
	}
	c.specs = append(c.specs, client...)
	return c
}

// routes reports whether the router pre-check runs for an agent with mode
// on a model with the given tool mode.
func routes(mode RouterMode, tm ToolMode) bool {
	switch mode {
	case RouterAlways:
		return true
	case RouterOff:
		return false
	default:
		return tm == ToolModeText
	}
}

const defaultAssistantPrompt = `You are Switchboard's assistant. Answer directly when you can, and use the tools offered when the request needs them. When a tool reports an error, read it: fix the call, or ask the user for what is missing (for example a full path).`

// systemPrompt returns spec's prompt; the assistant's also lists the agents
// it can hand work to.
func (r *Runtime) systemPrompt(ctx context.Context, spec store.Agent) string {
	if spec.Name != "" {
		if spec.Prompt != "" {
			return spec.Prompt
		}
		return fmt.Sprintf("You are @%s, an agent of Switchboard. Use your tools to do what you are asked, then answer briefly.", spec.Name)
	}
	p := spec.Prompt
	if p == "" {
		p = defaultAssistantPrompt
	}
	if r.opts.Agents == nil {
		return p
	}
	agents, err := r.opts.Agents.ListAgents(ctx)
	if err != nil {
		r.logger.WarnContext(ctx, "listing agents for the assistant prompt", logKeyErr, err)
		return p
	}
	if len(agents) == 0 {
		return p
	}
	var b strings.Builder
	b.WriteString(p)
	b.WriteString("\n\nTo hand a task to one of these agents, answer with @name followed by the task (\"@bob please send the report\"). Write @ only to hand over work, never in examples.\n")
	for _, a := range agents {
		fmt.Fprintf(&b, "- @%s", a.Name)
		if a.Description != "" {
			b.WriteString(": " + a.Description)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
