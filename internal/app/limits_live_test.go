package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestReloadAppliesPoliciesLive edits the followed file: a tool-call rate
// limit lowered there refuses the next call beyond it, and an approval
// rule added there denies the next call, with no restart. The server
// process is the same throughout (these sections restart nothing).
func TestReloadAppliesPoliciesLive(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	path := filepath.Join(dir, "switchboard.yaml")
	keep := mcptest.StdioServer(t, "keep")
	head := "data: " + filepath.Join(dir, "data") + "\nmcpServers:\n" + serverEntry(keep)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(head+text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Path: path, Cwd: dir, Getenv: func(string) string { return "" }})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, &Options{Reload: load})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { a.followConfig(ctx, load) })
	defer func() { cancel(); wg.Wait() }()

	call := func() error {
		_, err := a.CallLocal(t.Context(), "keep__echo", &tools.CallRequest{Arguments: []byte(`{"text":"hi"}`)})
		return err
	}
	for i := range 3 {
		if err := call(); err != nil {
			t.Fatalf("call %d without limits: %v", i, err)
		}
	}
	pid := a.pool.Status()[0].PID

	// 6 a minute is a burst of 1: one call, then refused.
	write("rateLimits: {toolCallsPerMinute: 6}\n")
	poll(t, "the lowered limit applied", func() bool { return a.config().RateLimits.ToolCallsPerMinute == 6 })
	if err := call(); err != nil {
		t.Fatalf("first call under the new limit: %v", err)
	}
	var rerr *gate.RateError
	if err := call(); !errors.As(err, &rerr) {
		t.Fatalf("second call under a limit of 6 a minute: %v; want a rate refusal", err)
	}

	write("approvals: {rules: [{server: keep, tool: '*', policy: deny}]}\n")
	poll(t, "the rule applied", func() bool { return len(a.config().Approvals.Rules) == 1 })
	var ref *gate.Refusal
	if err := call(); !errors.As(err, &ref) || ref.Approval != store.AuditDenied {
		t.Fatalf("call under a deny rule added to the file: %v; want it denied by the policy", err)
	}

	write("")
	poll(t, "the rule and limit removed", func() bool { return len(a.config().Approvals.Rules) == 0 })
	for i := range 3 {
		if err := call(); err != nil {
			t.Fatalf("call %d after the rule and limit went: %v", i, err)
		}
	}
	if got := a.pool.Status()[0].PID; got != pid {
		t.Errorf("server pid %d, was %d: policies and limits must restart nothing", got, pid)
	}
}
