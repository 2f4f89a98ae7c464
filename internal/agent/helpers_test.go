package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) {
	// A confined terminal or stdio server re-executes this binary as the
	// sandbox's shim.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	mcptest.MaybeServe()
	goleak.VerifyTestMain(m)
}

// echo answers a call with its arguments.
func echo(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
	return tools.TextResult(string(req.Arguments)), nil
}

var (
	readOnly    = &tools.Annotations{ReadOnlyHint: true}
	destructive = &tools.Annotations{}
)

// tool returns an in-process tool; a nil call echoes the arguments.
func tool(name string, ann *tools.Annotations, call func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error)) *tools.Func {
	if call == nil {
		call = echo
	}
	return &tools.Func{Spec: tools.Info{Name: name, Description: "test tool " + name, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: ann}, Run: call}
}

// memAgents is a hand-written agent.Agents.
type memAgents struct {
	mu     sync.Mutex
	agents map[string]store.Agent
}

func newAgents(specs ...store.Agent) *memAgents {
	m := &memAgents{agents: map[string]store.Agent{}}
	for _, s := range specs {
		m.agents[s.Name] = s
	}
	return m
}

func (m *memAgents) GetAgent(_ context.Context, name string) (store.Agent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.agents[name]
	if !ok {
		return a, fmt.Errorf("agent %q: %w", name, store.ErrNotFound)
	}
	return a, nil
}

func (m *memAgents) ListAgents(context.Context) ([]store.Agent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Agent
	for _, name := range slices.Sorted(maps.Keys(m.agents)) {
		out = append(out, m.agents[name])
	}
	return out, nil
}

func (m *memAgents) AssignServer(_ context.Context, name, server string) (store.Agent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.agents[name]
	if !ok {
		return a, fmt.Errorf("no agent %q", name)
	}
	if a.Servers != nil && !slices.Contains(a.Servers, server) {
		a.Servers = append(slices.Clone(a.Servers), server)
		slices.Sort(a.Servers)
	}
	m.agents[name] = a
	return a, nil
}

func (m *memAgents) RemoveServer(_ context.Context, name, server string) (store.Agent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.agents[name]
	if !ok {
		return a, fmt.Errorf("no agent %q", name)
	}
	a.Servers = slices.DeleteFunc(slices.Clone(a.Servers), func(s string) bool { return s == server })
	m.agents[name] = a
	return a, nil
}

// memAudit is a hand-written store.AuditLog that keeps every record.
type memAudit struct {
	mu      sync.Mutex
	records []auditEntry
}

type auditEntry struct {
	Rec store.AuditRecord
	Res store.AuditResult
}

func (a *memAudit) BeginAudit(_ context.Context, rec store.AuditRecord) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.records = append(a.records, auditEntry{Rec: rec})
	return fmt.Sprint(len(a.records) - 1), nil
}

func (a *memAudit) FinishAudit(_ context.Context, id string, res store.AuditResult) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var i int
	fmt.Sscan(id, &i)
	a.records[i].Res = res
	return nil
}

func (a *memAudit) all() []auditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.records)
}

// memUsage is a hand-written UsageRecorder.
type memUsage struct {
	mu   sync.Mutex
	runs []store.Usage
}

func (u *memUsage) RecordUsage(_ context.Context, rec store.Usage) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.runs = append(u.runs, rec)
	return nil
}

func (u *memUsage) all() []store.Usage {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.runs)
}

// env is one runtime under test with its parts.
type env struct {
	rt     *agent.Runtime
	reg    *tools.Registry
	models map[string]*llmtest.FakeProvider
	modes  map[string]agent.ToolMode
	// resolve, when set, resolves every model instead of models.
	resolve agent.ModelFunc
	audit   *memAudit
	usage   *memUsage
	agents  *memAgents
}

// newEnv builds a runtime whose default model ("" and "main") is fake;
// configure may change the options before New, and set e.resolve to
// resolve models another way.
// envOptions configure a test runtime: its Options and the gate's policy,
// limiter and audit log (the env's memAudit unless Audit is set to nil).
type envOptions struct {
	agent.Options
	Policy  agent.Policy
	Limiter gate.Limiter
	Audit   store.AuditLog
}

func newEnv(t testing.TB, fake *llmtest.FakeProvider, configure func(*envOptions)) *env {
	t.Helper()
	e := &env{
		reg:    tools.NewRegistry(nil),
		models: map[string]*llmtest.FakeProvider{"main": fake},
		modes:  map[string]agent.ToolMode{},
		audit:  &memAudit{},
		usage:  &memUsage{},
		agents: newAgents(),
	}
	models := func(name string) (agent.Model, error) {
		if e.resolve != nil {
			return e.resolve(name)
		}
		if name == "" {
			name = "main"
		}
		p, ok := e.models[name]
		if !ok {
			return agent.Model{}, fmt.Errorf("no model %q", name)
		}
		return agent.Model{Name: name, ID: name + "-id", Provider: p, ToolMode: e.modes[name]}, nil
	}
	opts := &envOptions{Options: agent.Options{Agents: e.agents, Usage: e.usage}, Audit: e.audit}
	if configure != nil {
		configure(opts)
	}
	g := gate.New(&gate.Options{Policy: opts.Policy, Limiter: opts.Limiter, Audit: opts.Audit})
	e.rt = agent.New(models, e.reg, g, &opts.Options)
	return e
}

func (e *env) setTools(ts ...tools.Tool) {
	e.reg.Set(tools.Source{Kind: tools.KindBuiltin}, ts)
}

// run collects a whole turn.
func (e *env) run(t testing.TB, req *agent.Request) ([]agent.Event, error) {
	t.Helper()
	if req.ConversationID == "" {
		req.ConversationID = "c1"
	}
	var evs []agent.Event
	for ev, err := range e.rt.Run(t.Context(), req) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func (e *env) mustRun(t testing.TB, req *agent.Request) []agent.Event {
	t.Helper()
	evs, err := e.run(t, req)
	if err != nil {
		t.Fatalf("run %q: %v", req.Message, err)
	}
	return evs
}

// say scripts a text answer.
func say(parts ...string) llmtest.FakeReply {
	return llmtest.FakeReply{Turn: llmtest.Turn{Text: parts}}
}

// calls scripts an answer with tool calls given as id, name, args triples.
func calls(triples ...string) llmtest.FakeReply {
	var cs []llmtest.ToolCallScript
	for i := 0; i+2 < len(triples); i += 3 {
		cs = append(cs, llmtest.ToolCallScript{ID: triples[i], Name: triples[i+1], ArgChunks: []string{triples[i+2]}})
	}
	return llmtest.FakeReply{Turn: llmtest.Turn{ToolCalls: cs}}
}

// text joins the text events of evs.
func text(evs []agent.Event) string {
	var s string
	for _, ev := range evs {
		if ev.Kind == agent.EventText {
			s += ev.Text
		}
	}
	return s
}

// kinds lists the event kinds, for order checks.
func kinds(evs []agent.Event) []agent.EventKind {
	var out []agent.EventKind
	for _, ev := range evs {
		if ev.Kind != agent.EventText {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func find(evs []agent.Event, k agent.EventKind) []agent.Event {
	var out []agent.Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

func last(evs []agent.Event) agent.Event {
	if len(evs) == 0 {
		return agent.Event{}
	}
	return evs[len(evs)-1]
}

// toolMessages returns the tool messages the model received in request n.
func toolMessages(reqs []llm.Request, n int) []llm.Message {
	var out []llm.Message
	for _, m := range reqs[n].Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}
