package mcphost_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestStatusOrderAndDisabled(t *testing.T) {
	t.Parallel()
	p := startPool(t, []mcphost.ServerConfig{
		mcptest.StdioServer(t, "zeta"),
		{Name: "alpha"}, // neither command nor url: disabled, not retried
		{Name: "mid", Transport: "carrier-pigeon", URL: "http://127.0.0.1:1"},
	}, nil)
	var names []string
	var states []mcphost.State
	for _, st := range p.Status() {
		names = append(names, st.Name)
		states = append(states, st.State)
	}
	if diff := cmp.Diff([]string{"alpha", "mid", "zeta"}, names); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	want := []mcphost.State{mcphost.StateDisabled, mcphost.StateDisabled, mcphost.StateReady}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states mismatch (-want +got):\n%s", diff)
	}
	if err := p.Restart("nope"); err == nil {
		t.Error("Restart of an unknown server: no error")
	}
}

func TestRestartReadyServer(t *testing.T) {
	t.Parallel()
	sc := mcptest.StdioServer(t, "r")
	p := startPool(t, []mcphost.ServerConfig{sc}, nil)
	if err := p.Restart("r"); err != nil {
		t.Fatal(err)
	}
	if !mcptest.Poll(10*time.Second, func() bool {
		st := statusOf(t, p, "r")
		return st.State == mcphost.StateReady && st.Restarts == 1
	}) {
		t.Fatalf("not restarted: %+v", statusOf(t, p, "r"))
	}
	if n := mcptest.CountEvents(mcptest.EventsFile(sc), "pid "); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	if st := statusOf(t, p, "r"); st.LastError != "" {
		t.Errorf("a requested restart is not a failure, LastError %q", st.LastError)
	}
}

func TestCloseDuringCall(t *testing.T) {
	t.Parallel()
	sc := mcptest.StdioServer(t, "busy")
	sc.ShutdownTimeout = 100 * time.Millisecond
	p := mcphost.NewPool([]mcphost.ServerConfig{sc}, testOptions())
	p.Start(t.Context())
	hang := findTool(t, p, "hang")
	errc := make(chan error, 1)
	go func() {
		_, err := call(t, hang, map[string]any{"id": "h"})
		errc <- err
	}()
	mcptest.WaitEvent(t, mcptest.EventsFile(sc), "hang h", 10*time.Second)
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close hung while a call was in flight")
	}
	if err := <-errc; !errors.Is(err, tools.ErrUnavailable) {
		t.Errorf("in-flight call ended with %v, want ErrUnavailable", err)
	}
}

func TestCloseWithoutStart(t *testing.T) {
	t.Parallel()
	p := mcphost.NewPool([]mcphost.ServerConfig{{Name: "a", Command: "true"}}, nil)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.Start(t.Context()) // after Close: does nothing
	if st := p.Status()[0]; st.State != mcphost.StateStopped {
		t.Errorf("state %s, want stopped", st.State)
	}
	if err := p.Restart("a"); err == nil {
		t.Error("Restart on a closed pool: no error")
	}
}
