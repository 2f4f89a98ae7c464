package server

import (
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// eventJSON is the data of one SSE event of a run; the SSE event name is
// the agent's event kind (text, reasoning, tool_start, tool_end, progress,
// approval, approval_resolved, handoff, router, context, error, done), plus "run"
// first and "shutdown" when the server stops. Fields are set by kind.
type eventJSON struct {
	Agent    string          `json:"agent,omitempty"`
	Text     string          `json:"text,omitempty"`
	Call     *callJSON       `json:"call,omitempty"`
	Result   *resultJSON     `json:"result,omitempty"`
	Progress *tools.Progress `json:"progress,omitempty"`
	Approval *approvalJSON   `json:"approval,omitempty"`
	Handoff  *handoffJSON    `json:"handoff,omitempty"`
	Router   *routerJSON     `json:"router,omitempty"`
	Error    *runErrorJSON   `json:"error,omitempty"`
	Done     *doneJSON       `json:"done,omitempty"`
	// Elicitation is the answer an elicitation got (approval_resolved of
	// an elicitation): its action and the form values sent.
	Elicitation *elicitJSON `json:"elicitation,omitempty"`
	// Summary is the model's summary of the earlier conversation
	// (context events of a turn that summarised it).
	Summary string `json:"summary,omitempty"`
}

type callJSON struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Server    string          `json:"server,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type resultJSON struct {
	Outcome    string `json:"outcome"`
	Text       string `json:"text"`
	IsError    bool   `json:"isError,omitempty"`
	DurationMS int64  `json:"durationMs"`
	Approval   string `json:"approval,omitempty"`
}

type elicitJSON struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

type handoffJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Back bool   `json:"back"`
}

type routerJSON struct {
	NeedsTools bool   `json:"needsTools"`
	Answer     string `json:"answer,omitempty"`
}

type runErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type doneJSON struct {
	RunID        string `json:"runId"`
	StopReason   string `json:"stopReason"`
	InputTokens  int    `json:"inputTokens"`
	OutputTokens int    `json:"outputTokens"`
	ToolCalls    int    `json:"toolCalls"`
}

func toCall(c *agent.CallInfo) *callJSON {
	if c == nil {
		return nil
	}
	return &callJSON{ID: c.ID, Name: c.Name, Server: c.Server, Arguments: validJSON(c.Arguments)}
}

// toEvent converts an agent event to its wire shape.
func toEvent(ev agent.Event) eventJSON {
	out := eventJSON{Agent: ev.Agent, Text: ev.Text, Call: toCall(ev.Call), Progress: ev.Progress, Summary: ev.Summary}
	if a := ev.Approval; a != nil {
		aj := toApproval(*a)
		out.Approval = &aj
	}
	if e := ev.Elicit; e != nil {
		out.Elicitation = &elicitJSON{Action: e.Action, Content: e.Content}
	}
	if r := ev.Result; r != nil {
		out.Result = &resultJSON{Outcome: string(r.Outcome), Text: r.Text, IsError: r.IsError, DurationMS: r.Duration.Milliseconds(), Approval: string(r.Approval)}
	}
	if h := ev.Handoff; h != nil {
		out.Handoff = &handoffJSON{From: h.From, To: h.To, Back: h.Back}
	}
	if rd := ev.Router; rd != nil {
		out.Router = &routerJSON{NeedsTools: rd.NeedsTools, Answer: rd.Answer}
	}
	if e := ev.Error; e != nil {
		out.Error = &runErrorJSON{Code: string(e.Code), Message: e.Message}
	}
	if d := ev.Done; d != nil {
		out.Done = &doneJSON{RunID: d.RunID, StopReason: string(d.StopReason), InputTokens: d.Usage.InputTokens, OutputTokens: d.Usage.OutputTokens, ToolCalls: d.ToolCalls}
	}
	return out
}
