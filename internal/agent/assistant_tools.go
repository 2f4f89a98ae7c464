package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

const agentServerSchema = `{"type":"object","properties":{` +
	`"agent":{"type":"string","description":"the agent's name, without @"},` +
	`"server":{"type":"string","description":"a server name from list_servers"}},` +
	`"required":["agent","server"],"additionalProperties":false}`

// assistantTools builds the agent-management tools. They live in a private
// registry, so they get argument validation and result bounds but are
// never offered to other agents or through the gateway.
func (r *Runtime) assistantTools() []tools.Entry {
	if r.opts.Agents == nil {
		return nil
	}
	readOnly := &tools.Annotations{ReadOnlyHint: true}
	// Changing what an agent may do is a permission change: destructive,
	// so the default policy asks.
	destructive := &tools.Annotations{}
	ts := []tools.Tool{
		&tools.Func{Spec: tools.Info{
			Name: "list_agents", Description: "List the named agents: their model, description and the tool servers each may use.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Annotations: readOnly,
		}, Run: r.listAgents},
		&tools.Func{Spec: tools.Info{
			Name: "list_servers", Description: "List the tool servers (MCP, OpenAPI and builtin) and how many tools each offers.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Annotations: readOnly,
		}, Run: r.listServers},
		&tools.Func{Spec: tools.Info{
			Name: "assign_server", Description: "Give an agent the tools of a server (\"give bob email access\"). Applies from the agent's next turn.",
			InputSchema: json.RawMessage(agentServerSchema), Annotations: destructive,
		}, Run: r.assignServer},
		&tools.Func{Spec: tools.Info{
			Name: "remove_server", Description: "Take a server's tools away from an agent. Applies from the agent's next turn.",
			InputSchema: json.RawMessage(agentServerSchema), Annotations: destructive,
		}, Run: r.removeServer},
	}
	r.ownReg = tools.NewRegistry(nil)
	r.ownReg.Set(tools.Source{Kind: tools.KindBuiltin}, ts)
	return r.ownReg.List()
}

// sharedStateTools are the management tools that change what every user
// runs. They need the role the REST API's routes for the same changes
// need ([store.Role.ManagesShared]): approving a call is the user's say on
// this call, not a grant of powers the user does not have.
var sharedStateTools = map[string]bool{"assign_server": true, "remove_server": true}

// roleRefusal says why the run's user may not call the management tool
// name, or returns "" when it may. It is the one check of the rule, asked
// before approval (so nobody is asked to approve what cannot run) and again
// at the call.
func roleRefusal(req *Request, name string) string {
	if !sharedStateTools[name] || req.Role.ManagesShared() {
		return ""
	}
	return fmt.Sprintf("not run: %s changes an agent for every user, which needs the admin role, as the API's agent routes do; "+
		"the user of this conversation is not an admin. Tell the user to ask an admin to make the change "+
		"(an admin can also make them one with `switchboard users set NAME --admin`)", name)
}

// ownCall calls one of the assistant's management tools for the run whose
// call ctx carries. A call outside a run (no turn in ctx) has no role and
// cannot change shared state.
func (r *Runtime) ownCall(ctx context.Context, name string, req *tools.CallRequest) (*tools.Result, error) {
	run := &Request{}
	if t, ok := ctx.Value(callKey{}).(*turn); ok {
		run = &t.req
	}
	if why := roleRefusal(run, name); why != "" {
		return tools.ErrorResult(why), nil
	}
	return r.ownReg.Call(ctx, name, req)
}

func (r *Runtime) listAgents(ctx context.Context, _ *tools.CallRequest) (*tools.Result, error) {
	agents, err := r.opts.Agents.ListAgents(ctx)
	if err != nil {
		return tools.ErrorResult("listing agents failed: " + err.Error()), nil //nolint:nilerr // the model should see it
	}
	if len(agents) == 0 {
		return tools.TextResult("There are no named agents."), nil
	}
	var b strings.Builder
	for _, a := range agents {
		fmt.Fprintf(&b, "@%s", a.Name)
		if a.Description != "" {
			fmt.Fprintf(&b, ": %s", a.Description)
		}
		model := a.Model
		if model == "" {
			model = "default"
		}
		fmt.Fprintf(&b, " (model %s; servers: %s)\n", model, serverList(a.Servers))
	}
	return tools.TextResult(b.String()), nil
}

func serverList(s []string) string {
	switch {
	case s == nil:
		return "all"
	case len(s) == 0:
		return "none"
	}
	return strings.Join(s, ", ")
}

// servers returns the server names of the catalogue with their tool counts.
func (r *Runtime) servers() ([]string, map[string]int) {
	counts := map[string]int{}
	var names []string
	for _, e := range r.tools.List() {
		s := serverOf(e)
		if counts[s] == 0 {
			names = append(names, s)
		}
		counts[s]++
	}
	slices.Sort(names)
	return names, counts
}

func (r *Runtime) listServers(context.Context, *tools.CallRequest) (*tools.Result, error) {
	names, counts := r.servers()
	if len(names) == 0 {
		return tools.TextResult("No tool servers are connected."), nil
	}
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s (%d tools)\n", n, counts[n])
	}
	return tools.TextResult(b.String()), nil
}

type agentServerArgs struct {
	Agent  string `json:"agent"`
	Server string `json:"server"`
}

func parseAgentServer(args json.RawMessage) (agentServerArgs, *tools.Result) {
	var a agentServerArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return a, tools.ErrorResult("reading arguments: " + err.Error())
	}
	a.Agent = strings.TrimPrefix(a.Agent, "@")
	if a.Agent == "" || a.Server == "" {
		return a, tools.ErrorResult("both agent and server are required")
	}
	return a, nil
}

func (r *Runtime) assignServer(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	a, bad := parseAgentServer(req.Arguments)
	if bad != nil {
		return bad, nil
	}
	names, _ := r.servers()
	if !slices.Contains(names, a.Server) {
		return tools.ErrorResult(fmt.Sprintf("there is no server %q; the servers are: %s", a.Server, strings.Join(names, ", "))), nil
	}
	spec, err := r.opts.Agents.AssignServer(ctx, a.Agent, a.Server)
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("assigning %s to @%s failed: %v", a.Server, a.Agent, err)), nil
	}
	return tools.TextResult(fmt.Sprintf("@%s now has the tools of %s (servers: %s), from its next turn.", spec.Name, a.Server, serverList(spec.Servers))), nil
}

func (r *Runtime) removeServer(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	a, bad := parseAgentServer(req.Arguments)
	if bad != nil {
		return bad, nil
	}
	spec, err := r.opts.Agents.RemoveServer(ctx, a.Agent, a.Server)
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("removing %s from @%s failed: %v", a.Server, a.Agent, err)), nil
	}
	return tools.TextResult(fmt.Sprintf("@%s no longer has the tools of %s (servers: %s).", spec.Name, a.Server, serverList(spec.Servers))), nil
}
