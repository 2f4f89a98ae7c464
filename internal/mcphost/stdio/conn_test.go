package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	res, err := c.CallTool(t.Context(), 0, "echo", []byte(`"echo"`), nil, &tools.CallRequest{})
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
	if _, err := c.CallTool(t.Context(), 0, "echo", []byte(`"echo"`), nil, nil); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("call after Close: err = %v, want mcp.ErrConnectionClosed", err)
	}
}

// TestConnCancelCalls: a server that never answers does not hold a call
// once the host cancels the direct path's calls.
func TestConnCancelCalls(t *testing.T) {
	c := startShell(t, `while read -r line; do :; done`, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), 0, "slow", []byte(`"slow"`), nil, nil)
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

// TestConnCallTimeouts: calls past their timeout end with ErrCallTimeout
// and the server is told to cancel them, in the order of their deadlines,
// whatever order they began in; a call the server answers is not touched.
func TestConnCallTimeouts(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests")
	c := startShell(t, `while read -r line; do
	printf '%s\n' "$line" >> '`+log+`'
	case "$line" in
	*'"name":"quick"'*)
		id=$(printf '%s' "$line" | sed 's/.*"id":"\(sb-[0-9]*\)".*/\1/')
		printf '{"jsonrpc":"2.0","id":"%s","result":{"content":[{"type":"text","text":"quick"}]}}\n' "$id";;
	esac
done`, nil)
	type ended struct {
		name string
		err  error
		took time.Duration
	}
	done := make(chan ended, 2)
	hang := func(name string, timeout time.Duration) {
		start := time.Now()
		_, err := c.CallTool(t.Context(), timeout, name, []byte(`"`+name+`"`), nil, nil)
		done <- ended{name, err, time.Since(start)}
	}
	go hang("late", 1500*time.Millisecond) // arms the connection's timer first
	time.Sleep(50 * time.Millisecond)
	go hang("early", 100*time.Millisecond) // must re-arm it earlier
	res, err := c.CallTool(t.Context(), 10*time.Second, "quick", []byte(`"quick"`), nil, nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "quick" {
		t.Fatalf("answered call: %+v, %v", res, err)
	}
	first, second := <-done, <-done
	if first.name != "early" || second.name != "late" {
		t.Fatalf("calls ended in the order %s, %s; want early, late", first.name, second.name)
	}
	if first.took >= 1500*time.Millisecond {
		t.Errorf("the early call ended after %v, at the late call's deadline: the timer was not armed for it", first.took)
	}
	for _, e := range []struct {
		ended
		timeout time.Duration
	}{{first, 100 * time.Millisecond}, {second, 1500 * time.Millisecond}} {
		if !errors.Is(e.err, ErrCallTimeout) || e.took < e.timeout {
			t.Errorf("%s: err %v after %v, want ErrCallTimeout after at least %v", e.name, e.err, e.took, e.timeout)
		}
	}
	// The server hears of both, and of nothing for the answered call.
	idOf := func(log, name string) string {
		for l := range strings.Lines(log) {
			if strings.Contains(l, `"name":"`+name+`"`) {
				return objectStringField(l, "id")
			}
		}
		return "?"
	}
	cancelled := func(log, id string) bool {
		return strings.Contains(log, `"method":"notifications/cancelled","params":{"requestId":"`+id+`"`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		got := string(b)
		if cancelled(got, idOf(got, "early")) && cancelled(got, idOf(got, "late")) {
			if cancelled(got, idOf(got, "quick")) {
				t.Errorf("the answered call was cancelled:\n%s", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was not told to cancel both calls:\n%s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c.calls.busy() {
		t.Error("calls are left in the table")
	}
}

// objectStringField returns the string value of key in the JSON object
// line, or "".
func objectStringField(line, key string) string {
	var v string
	_ = json.Unmarshal(objectField([]byte(line), key), &v)
	return v
}
