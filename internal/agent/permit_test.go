package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// managementTools are the assistant's own tools.
var managementTools = []string{"assign_server", "list_agents", "list_servers", "remove_server"}

// except returns permissions (exact names, which are globs too) covering
// every tool of e's catalogue and every management tool but denied.
func (e *env) except(denied ...string) []string {
	out := []string{}
	names := slices.Clone(managementTools)
	for _, en := range e.reg.List() {
		names = append(names, en.Name)
	}
	for _, n := range names {
		if !slices.Contains(denied, n) {
			out = append(out, n)
		}
	}
	return out
}

func toolNames(specs []llm.ToolSpec) []string {
	out := []string{}
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestPermitHidesAndRefusesTools checks that a tool the request's Permit
// rejects is not offered, and that calling it anyway is answered like an
// unknown tool without running it, for the assistant's management tools
// too.
func TestPermitHidesAndRefusesTools(t *testing.T) {
	tests := []struct {
		name      string
		call      string
		denied    []string
		wantTools []string
	}{
		{"catalogue tool", "secret", []string{"secret"}, []string{"echo", "assign_server", "list_agents", "list_servers", "remove_server"}},
		{"management tool", "assign_server", []string{"assign_server", "remove_server"}, []string{"echo", "secret", "list_agents", "list_servers"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			fake := llmtest.NewFakeProvider(calls("c1", tc.call, `{"agent":"bob","server":"mail"}`), say("I may not."))
			e := newEnv(t, fake, nil)
			e.agents.agents["bob"] = store.Agent{Name: "bob", Servers: []string{}}
			e.setTools(tool("echo", readOnly, nil), tool("secret", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
				ran.Add(1)
				return tools.TextResult("the secret"), nil
			}))
			evs := e.mustRun(t, &agent.Request{Message: "do it", Permissions: e.except(tc.denied...), Approver: agent.AutoApprove})

			if diff := cmp.Diff(tc.wantTools, toolNames(fake.Requests()[0].Tools)); diff != "" {
				t.Errorf("offered tools mismatch (-want +got):\n%s", diff)
			}
			ends := find(evs, agent.EventToolEnd)
			// A catalogue tool the caller may not call is denied and labelled
			// forbidden; a name that is no tool at all is an error.
			okOutcome := len(ends) == 1 && (ends[0].Result.Outcome == store.OutcomeError ||
				(ends[0].Result.Outcome == store.OutcomeDenied && ends[0].Result.Approval == store.AuditForbidden))
			if len(ends) != 1 || !okOutcome || !strings.Contains(ends[0].Result.Text, "there is no tool named") {
				t.Fatalf("tool end events = %+v", ends)
			}
			if strings.Contains(ends[0].Result.Text, tc.call+",") {
				t.Errorf("the refusal lists the refused tool: %q", ends[0].Result.Text)
			}
			if len(find(evs, agent.EventToolStart)) != 0 || ran.Load() != 0 {
				t.Errorf("the refused tool ran")
			}
			if a, _ := e.agents.GetAgent(t.Context(), "bob"); len(a.Servers) != 0 {
				t.Errorf("bob's servers changed to %v", a.Servers)
			}
			if got := toolMessages(fake.Requests(), 1); len(got) != 1 || !got[0].IsError {
				t.Errorf("tool messages sent to the model = %+v", got)
			}
		})
	}
}

// TestPermitReachesHandoffs checks that an agent handed the turn gets only
// the permitted tools of its servers.
func TestPermitReachesHandoffs(t *testing.T) {
	main := llmtest.NewFakeProvider()
	bob := llmtest.NewFakeProvider(calls("b1", "mail__read", `{}`), say("I cannot read mail."))
	e := handoffEnv(t, main, bob, nil)
	evs := e.mustRun(t, &agent.Request{Message: "@bob check my emails", Permissions: e.except("mail__read")})

	if diff := cmp.Diff([]string{"echo"}, toolNames(bob.Requests()[0].Tools)); diff != "" {
		t.Errorf("bob's tools mismatch (-want +got):\n%s", diff)
	}
	ends := find(evs, agent.EventToolEnd)
	if len(ends) != 1 || ends[0].Result.Outcome != store.OutcomeDenied || ends[0].Result.Approval != store.AuditForbidden || ends[0].Agent != "bob" {
		t.Fatalf("tool end events = %+v", ends)
	}
	if len(find(evs, agent.EventToolStart)) != 0 {
		t.Errorf("mail__read ran for bob")
	}
}

// TestLimitRefusesCallsOverTheRate: a call the per-user limit of the gate
// refuses does not run, and the model is told why.
func TestLimitRefusesCallsOverTheRate(t *testing.T) {
	var ran atomic.Int32
	fake := llmtest.NewFakeProvider(calls("c1", "echo", `{}`, "c2", "echo", `{}`), say("One of them was refused."))
	var allowed atomic.Int32
	limit := limiterFunc(func(context.Context, string, string) error {
		if allowed.Add(1) > 1 {
			return &gate.Refusal{Err: errors.New("too many tool calls for this user; retry in 3 s")}
		}
		return nil
	})
	e := newEnv(t, fake, func(o *envOptions) { o.Limits.ParallelToolCalls = 1; o.Limiter = limit })
	e.setTools(tool("echo", readOnly, func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		ran.Add(1)
		return tools.TextResult("ok"), nil
	}))
	evs := e.mustRun(t, &agent.Request{Message: "twice"})
	if ran.Load() != 1 {
		t.Errorf("the tool ran %d times, want 1", ran.Load())
	}
	var refused []agent.Event
	for _, ev := range find(evs, agent.EventToolEnd) {
		if ev.Result.Outcome == store.OutcomeDenied {
			refused = append(refused, ev)
		}
	}
	if len(refused) != 1 || !strings.Contains(refused[0].Result.Text, "retry in 3 s") {
		t.Fatalf("refused calls = %+v", refused)
	}
	if got := toolMessages(fake.Requests(), 1); len(got) != 2 {
		t.Errorf("the model got %d tool results, want 2 (one refusal)", len(got))
	}
}

// limiterFunc is a gate.Limiter written as a function.
type limiterFunc func(ctx context.Context, user, what string) error

func (f limiterFunc) Allow(ctx context.Context, user, what string) error { return f(ctx, user, what) }

// TestNewWithoutGatePanics: the gate is required; a missing one is a wiring
// bug, not a runtime whose calls skip the policy and the audit.
func TestNewWithoutGatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("agent.New with a nil gate did not panic")
		}
	}()
	agent.New(func(string) (agent.Model, error) { return agent.Model{}, nil }, tools.NewRegistry(nil), nil, nil)
}
