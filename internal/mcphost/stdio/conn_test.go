package stdio

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// startShell starts a Conn on sh running script; the test closes it.
func startShell(t *testing.T, script string, noise func([]byte)) *Conn {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	cmd := exec.Command(sh, "-c", script)
	c, err := Start(cmd, NewProcGroup(cmd), Options{
		Terminate:  5 * time.Second,
		MaxMessage: 1 << 20,
		Noise:      noise,
		Buffers:    &Buffers{},
		Log:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestConnCallSkipsNoise: a banner on stdout is reported, not fatal, and
// the direct path reads the answer to its own id.
func TestConnCallSkipsNoise(t *testing.T) {
	var (
		mu    sync.Mutex
		lines []string
	)
	c := startShell(t, `echo 'a banner, not JSON-RPC'
read -r req
printf '%s\n' '{"jsonrpc":"2.0","id":"sb-1","result":{"content":[{"type":"text","text":"hi"}]}}'
read -r eof`, func(l []byte) {
		mu.Lock()
		lines = append(lines, string(l))
		mu.Unlock()
	})
	res, err := c.CallTool(t.Context(), "echo", []byte(`"echo"`), nil, &tools.CallRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "hi" || res.IsError {
		t.Errorf("result = %+v, want the text hi", res)
	}
	mu.Lock()
	got := lines
	mu.Unlock()
	if len(got) != 1 || got[0] != "a banner, not JSON-RPC" {
		t.Errorf("noise = %q, want the banner", got)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if st := c.ExitState(time.Second); st == "" {
		t.Error("ExitState after Close is empty; the process should have been waited for")
	}
	if _, err := c.CallTool(t.Context(), "echo", []byte(`"echo"`), nil, nil); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("call after Close: err = %v, want mcp.ErrConnectionClosed", err)
	}
}

// TestConnCancelCalls: a server that never answers does not hold a call
// once the host cancels the direct path's calls.
func TestConnCancelCalls(t *testing.T) {
	c := startShell(t, `while read -r line; do :; done`, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "slow", []byte(`"slow"`), nil, nil)
		errc <- err
	}()
	// CancelCalls also fails calls made after it, so whichever comes
	// first the call ends with the connection's error.
	c.CancelCalls()
	if err := <-errc; !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("err = %v, want mcp.ErrConnectionClosed", err)
	}
	if _, ok := c.Meta(); ok {
		t.Error("Meta is set before any SDK request carried one")
	}
}
