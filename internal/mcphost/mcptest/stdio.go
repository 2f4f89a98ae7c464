package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
)

// modeSleeper is the grandchild of ModeGrandchild: it only sleeps.
const modeSleeper = "sleeper"

// MaybeServe turns this process into a stdio test server and exits, when
// [EnvMode] is set; otherwise it returns at once. Call it first in TestMain.
func MaybeServe() {
	modeEnv, ok := os.LookupEnv(EnvMode)
	if !ok {
		return
	}
	os.Exit(serveStdio(strings.Split(modeEnv, ",")))
}

func serveStdio(modes []Mode) int {
	ts := &testServer{modes: modes, events: &eventLog{path: os.Getenv(EnvEvents)}}
	id := os.Getenv(EnvID)
	ts.events.add("pid", strconv.Itoa(os.Getpid()), id)
	if ts.has(modeSleeper) {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
		select {}
	}
	if ts.has(ModeExit) {
		fmt.Fprintln(os.Stderr, "fatal: MCPTEST_API_KEY is not set")
		return 1
	}
	if ts.has(ModeStderrFlood) {
		for i := range 1000 {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		fmt.Fprintln(os.Stderr, strings.Repeat("y", 100_000))
	}
	if ts.has(ModeIgnoreStdin) {
		signal.Ignore(syscall.SIGTERM)
	}
	if ts.has(ModeGrandchild) {
		exe, _ := os.Executable()
		cmd := exec.Command(exe) //nolint:noctx // deliberately outlives everything, like a stray node under npx
		cmd.Env = append(os.Environ(), EnvMode+"="+modeSleeper)
		if err := cmd.Start(); err == nil {
			ts.events.add("grandchild", strconv.Itoa(cmd.Process.Pid))
		}
	}
	if ts.has(ModeSlowStart) {
		d, _ := time.ParseDuration(os.Getenv(EnvDelay))
		time.Sleep(d)
	}
	if ts.has(ModeBarrier) {
		ts.events.add("start", id)
		n, _ := strconv.Atoi(os.Getenv(EnvBarrier))
		if !Poll(20*time.Second, func() bool { return CountEvents(ts.events.path, "start ") >= n }) {
			fmt.Fprintln(os.Stderr, "barrier: the other servers never started")
			return 1
		}
		ts.events.add("passed", id)
	}
	if ts.has(ModeGarbageStart) {
		fmt.Println("Starting test server on stdio... ready!")
	}
	ts.onGarbage = func() { fmt.Println("this is not JSON-RPC") }
	ts.onCrash = func() {
		fmt.Fprintln(os.Stderr, "panic: crash requested")
		os.Exit(2)
	}
	var t mcp.Transport = &mcp.StdioTransport{}
	if ts.has(ModeRecordCalls) {
		t = &recordingTransport{Transport: t, events: ts.events}
	}
	err := ts.build().Run(context.Background(), t)
	ts.events.add("stdin-closed")
	if ts.has(ModeIgnoreStdin) {
		select {}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	return 0
}

// StdioServer returns the configuration of a stdio MCP server that is this
// test binary re-executed in the given modes (none means [ModeNormal]). Its
// events file is in a fresh temporary directory: read it with
// [EventsFile] and [ReadEvents]. The binary's TestMain must call [MaybeServe].
func StdioServer(t testing.TB, name string, modes ...Mode) mcphost.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	if len(modes) == 0 {
		modes = []Mode{ModeNormal}
	}
	return mcphost.ServerConfig{
		Name:      name,
		Transport: mcphost.TransportStdio,
		Command:   exe,
		// Should the TestMain not call MaybeServe, run no tests rather than
		// recurse into the whole suite.
		Args: []string{"-test.run=^$"},
		Env: map[string]string{
			EnvMode:   strings.Join(modes, ","),
			EnvEvents: filepath.Join(t.TempDir(), "events"),
			EnvID:     name,
		},
	}
}

// EventsFile returns the events file of a server made by this package.
func EventsFile(sc mcphost.ServerConfig) string {
	if sc.Env != nil {
		return sc.Env[EnvEvents]
	}
	return ""
}

// PIDs returns the pids the stdio server recorded: its own ("pid" events)
// and its grandchildren's.
func PIDs(sc mcphost.ServerConfig) []int {
	var out []int
	for _, l := range ReadEvents(EventsFile(sc)) {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "pid" || f[0] == "grandchild") {
			if n, err := strconv.Atoi(f[1]); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// recordingTransport records the id of every tools/call request it reads.
type recordingTransport struct {
	mcp.Transport
	events *eventLog
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, events: t.events}, nil
}

type recordingConn struct {
	mcp.Connection
	events *eventLog
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		id, _ := json.Marshal(r.ID.Raw())
		c.events.add("call", string(id))
	}
	return m, err
}
