package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// callKey marks the context of a running tool call with its turn, so that
// a sampling or elicitation request made during the call finds the
// conversation to ask in.
type callKey struct{}

// withCall returns ctx marked with t, and with the run's user as the user
// the call acts for (tools.WithUser), so that what the call keeps (stored
// outputs) is that user's and read_tool_output reads only that user's.
func withCall(ctx context.Context, t *turn) context.Context {
	return context.WithValue(tools.WithUser(ctx, t.req.UserID), callKey{}, t)
}

// turnFor finds the running turn a request from server belongs to: the one
// whose call carries ctx, else the conversation named, else the only turn
// with a call running on server.
func (r *Runtime) turnFor(ctx context.Context, conversation, server string) *turn {
	if t, ok := ctx.Value(callKey{}).(*turn); ok {
		return t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *turn
	n := 0
	for t := range r.active {
		if conversation != "" && t.req.ConversationID == conversation {
			return t
		}
		if conversation == "" && server != "" && t.usesServer(server) {
			found = t
			n++
		}
	}
	if n == 1 {
		return found
	}
	return nil
}

func (t *turn) usesServer(server string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.servers[server] > 0
}

// setCurrent records the agent and model running now, for requests that
// arrive from other goroutines.
func (t *turn) setCurrent(agent, model string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.curAgent, t.curModel = agent, model
}

func (t *turn) current() (agent, model string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.curAgent, t.curModel
}

// SampleRequest is an MCP server asking for a completion
// (sampling/createMessage), in neutral form; the app converts the MCP
// host's request into it.
type SampleRequest struct {
	// ConversationID, when known, names the conversation to ask in; ""
	// means the conversation whose tool call on Server is running.
	ConversationID string
	Server         string
	System         string
	Messages       []llm.Message
	// MaxTokens zero means 1024.
	MaxTokens   int
	Temperature *float64
	Stop        []string
}

// SampleResult is the model's answer.
type SampleResult struct {
	Text       string
	Model      string
	StopReason string
}

// Sample answers a sampling request with the conversation's model (the
// default model when no conversation is running). The request goes through
// the approval path as a call of the pseudo-tool "sampling" on Server: the
// default policy asks, a rule (Tool "sampling") may allow it; approving it
// for the conversation covers later requests from the same server. Without a running conversation
// to ask in, only a policy that allows it lets it through.
func (r *Runtime) Sample(ctx context.Context, req *SampleRequest) (*SampleResult, error) {
	// The pseudo-tool is named per server, so approving sampling for the
	// conversation covers that server only; rules match it as "sampling".
	entry := tools.Entry{Name: "sampling:" + req.Server, Origin: tools.Origin{Kind: tools.KindMCP, Server: req.Server, Name: "sampling"}}
	t := r.turnFor(ctx, req.ConversationID, req.Server)
	modelName := ""
	args, _ := json.Marshal(map[string]any{"system": req.System, "messages": req.Messages, "maxTokens": req.MaxTokens})
	// The request is audited like a call of the pseudo-tool, in the run
	// it belongs to; its permission is that of the tool call it happens
	// in.
	rec := store.AuditRecord{Time: r.opts.Now(), Tool: entry.Name, Server: req.Server, Arguments: args, Approval: store.AuditAutoApproved}
	if t == nil {
		if r.gate.Decide(entry) != ActionAllow {
			return nil, fmt.Errorf("sampling for %q: it needs the user's approval and no conversation is running to ask in", req.Server)
		}
	} else {
		agent, model := t.current()
		modelName = model
		c := llm.ToolCall{Name: entry.Name, Arguments: args}
		rec = t.auditRecord(agent, c, &CallInfo{Name: entry.Name, Server: req.Server, Arguments: args})
		sf := &gate.Surface{Asking: gate.AskStored, Ask: func(ctx context.Context, _ *gate.Request, e tools.Entry) (store.AuditApproval, string) {
			return t.approve(ctx, agent, e, c)
		}}
		approval, why := r.gate.Approve(ctx, sf, &gate.Request{Caller: &t.caller, Name: entry.Name, Arguments: args}, entry)
		rec.Approval = approval
		if why != "" {
			r.gate.Refused(ctx, rec, approval, why)
			return nil, fmt.Errorf("sampling for %q: %s", req.Server, why)
		}
	}
	m, err := r.model(modelName)
	if err != nil {
		return nil, fmt.Errorf("sampling for %q: %w", req.Server, err)
	}
	call, err := r.gate.Begin(ctx, rec)
	if err != nil {
		return nil, fmt.Errorf("sampling for %q was not done: %w", req.Server, err)
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 1024
	}
	resp, err := llm.Generate(ctx, m.Provider, &llm.Request{
		Model: m.ID, System: req.System, Messages: req.Messages, MaxTokens: maxTokens,
		Temperature: req.Temperature, Stop: req.Stop,
	})
	res := store.AuditResult{Outcome: store.OutcomeOf(err, false), Error: errText(err)}
	if err == nil {
		res.ResultBytes = int64(len(resp.Text()))
	}
	call.Finish(ctx, res)
	if err != nil {
		return nil, fmt.Errorf("sampling for %q with model %q: %w", req.Server, m.Name, err)
	}
	id := m.ID
	if id == "" {
		id = m.Name
	}
	return &SampleResult{Text: resp.Text(), Model: id, StopReason: string(resp.StopReason)}, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return truncate(err.Error(), 1024)
}
