package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Client tools are run by the caller, not here, so a model step that calls
// one ends the run: the caller gets the calls ([Done].ClientCalls), runs
// them, and sends the conversation back with their results (a stateless
// run, [Request.Messages]). The caller's transcript then holds the
// assistant message with those calls only, which is what OpenAI's wire
// format needs (every tool_call of an assistant message answered by the
// client). Catalogue calls the model made in the same step are therefore
// not run: their results could not reach the model through the caller,
// and running them would repeat their side effects when the model asks
// again. The model sees only the client calls in the next request and
// asks again for what it still needs.

// emptySchema is the parameters schema of a client tool that gives none;
// providers require an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// clientTools copies specs, giving a schema to those without one.
func clientTools(specs []llm.ToolSpec) []llm.ToolSpec {
	if len(specs) == 0 {
		return nil
	}
	out := slices.Clone(specs)
	for i := range out {
		if len(out[i].Parameters) == 0 {
			out[i].Parameters = emptySchema
		}
	}
	return out
}

// checkClientTools reports a client tool named like a tool the run may
// use from the catalogue or the management tools: the model could not tell
// them apart.
func (r *Runtime) checkClientTools(req *Request) error {
	if len(req.ClientTools) == 0 {
		return nil
	}
	taken := map[string]bool{}
	for _, e := range r.tools.List() {
		taken[e.Name] = true
	}
	for _, e := range r.own {
		taken[e.Name] = true
	}
	for _, s := range req.ClientTools {
		if c := req.caller(); taken[s.Name] && c.Permits(s.Name) {
			return invalid("client tool %q has the name of a Switchboard tool; rename it on the client", s.Name)
		}
	}
	return nil
}

// splitClient returns the client calls among calls, and the others.
func splitClient(cat catalog, calls []llm.ToolCall) (client, other []llm.ToolCall) {
	for _, c := range calls {
		if cat.client[c.Name] {
			client = append(client, c)
		} else {
			other = append(other, c)
		}
	}
	return client, other
}

// handToClient ends an agent's run at a step that called client tools:
// each client call is announced, and the catalogue calls of the step are
// recorded as not run (see the comment at the top of this file).
func (t *turn) handToClient(ctx context.Context, agent string, cat catalog, client, other []llm.ToolCall) {
	for _, c := range client {
		t.emit(Event{Kind: EventToolStart, Agent: agent, Call: &CallInfo{ID: c.ID, Name: c.Name, Server: ClientServer, Arguments: c.Arguments}})
	}
	names := make([]string, len(client))
	for i, c := range client {
		names[i] = c.Name
	}
	text := fmt.Sprintf("not run: the same step called the client's tools %v, so the run ended to let the client run them; ask again if still needed", names)
	for _, c := range other {
		info := callInfo(c, cat)
		t.audit(ctx, t.auditRecord(agent, c, info), store.AuditResult{Outcome: store.OutcomeCancelled, Error: text})
		t.emit(Event{Kind: EventToolEnd, Agent: agent, Call: info, Result: &CallResult{Outcome: store.OutcomeCancelled, Text: text, IsError: true}})
	}
}
