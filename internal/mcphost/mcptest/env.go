package mcptest

import (
	"bufio"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables that configure a re-executed stdio test server.
const (
	// EnvMode selects the server's modes, comma separated (see [Mode]).
	EnvMode = "SWITCHBOARD_MCPTEST_MODE"
	// EnvEvents is the file the server appends its observations to.
	EnvEvents = "SWITCHBOARD_MCPTEST_EVENTS"
	// EnvID names the server in its events ("start <id>").
	EnvID = "SWITCHBOARD_MCPTEST_ID"
	// EnvSecret is the variable the whoami tool reports: a stand-in for a
	// user's secret in the per-user tests.
	EnvSecret = "SWITCHBOARD_MCPTEST_SECRET"
	// EnvBarrier is, for ModeBarrier, how many "start" events to wait for.
	EnvBarrier = "SWITCHBOARD_MCPTEST_BARRIER"
	// EnvDelay is, for ModeSlowStart, how long to wait before serving (a Go duration).
	EnvDelay = "SWITCHBOARD_MCPTEST_DELAY"
)

// Mode is one behaviour of the test server. Modes combine.
type Mode = string

const (
	// ModeNormal serves the standard tools (the default): echo, add, slow,
	// progress, hang, crash, garbage, big, rich, register, sample, elicit,
	// plus a resource, a resource template and a prompt.
	ModeNormal Mode = "normal"
	// ModeExit writes a fatal message to stderr and exits 1 at start.
	ModeExit Mode = "exit"
	// ModeSlowStart waits EnvDelay before serving.
	ModeSlowStart Mode = "slowstart"
	// ModeBarrier records "start <id>" and does not serve until EnvBarrier
	// servers sharing its events file have started: a server that is
	// connected only after the others finished would wait forever, so it
	// proves the client starts servers concurrently.
	ModeBarrier Mode = "barrier"
	// ModeGarbageStart prints a banner to stdout before serving.
	ModeGarbageStart Mode = "garbagestart"
	// ModeIgnoreStdin keeps running after stdin closes and ignores SIGTERM,
	// so only SIGKILL stops it.
	ModeIgnoreStdin Mode = "ignorestdin"
	// ModeGrandchild starts a grandchild process that sleeps forever
	// (recorded as "grandchild <pid>"), as npx does with node.
	ModeGrandchild Mode = "grandchild"
	// ModePaginate serves 25 extra tools t00..t24 in pages of 10.
	ModePaginate Mode = "paginate"
	// ModeNoDiscover exits when it receives server/discover, as some old
	// servers do on an unknown method; classic initialize works.
	ModeNoDiscover Mode = "nodiscover"
	// ModeStderrFlood writes 1000 numbered lines and one 100 KB line to stderr.
	ModeStderrFlood Mode = "stderrflood"
	// ModeStateless makes an HTTP server stateless (no Mcp-Session-Id), the
	// only kind that speaks the sessionless 2026-07-28 protocol; a stateful
	// one answers discovery so that clients fall back to 2025-11-25.
	ModeStateless Mode = "stateless"
	// ModeCrashAfterStart exits 3 once a tools/list has been answered,
	// to exercise crash loops after a successful connect.
	ModeCrashAfterStart Mode = "crashafterstart"
	// ModeRecordCalls records "call <id>" with the raw JSON-RPC id of every
	// tools/call request a stdio server receives, so a test can see which
	// path of the client sent it.
	ModeRecordCalls Mode = "recordcalls"
)

// eventLog appends one line per observation to a file shared with the test.
type eventLog struct {
	mu   sync.Mutex
	path string
}

func (l *eventLog) add(parts ...string) {
	if l == nil || l.path == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(strings.Join(parts, " ") + "\n")
}

// ReadEvents returns the lines recorded in an events file so far.
func ReadEvents(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// WaitEvent polls the events file until a line starting with prefix
// appears, and returns it; it fails the test after timeout.
func WaitEvent(t testing.TB, path, prefix string, timeout time.Duration) string {
	t.Helper()
	var line string
	ok := Poll(timeout, func() bool {
		for _, l := range ReadEvents(path) {
			if strings.HasPrefix(l, prefix) {
				line = l
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no event %q within %v; events: %q", prefix, timeout, ReadEvents(path))
	}
	return line
}

// CountEvents returns how many recorded lines start with prefix.
func CountEvents(path, prefix string) int {
	n := 0
	for _, l := range ReadEvents(path) {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// Poll calls cond every 10ms until it reports true or timeout passes, and
// reports whether it did. It is the tests' way to wait for something
// asynchronous without sleeping for a guessed time.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
