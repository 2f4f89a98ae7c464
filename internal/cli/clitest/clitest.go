// Package clitest helps tests run Switchboard the way its command line
// does: a buffer a running command writes into while the test reads it,
// waiting for `switchboard serve` to say where it listens, and serving an
// App in the test's process. Only tests may import it.
package clitest

import (
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/config"
)

// Buffer is a strings.Builder safe for the goroutines that write into it
// and the test that reads it.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

// Listening waits until stderr, where a starting `switchboard serve`
// writes, says where it listens, and returns that base URL. It fails the
// test, naming the server what, when exited is closed first (the command
// ended) or after 30 seconds.
func Listening(t testing.TB, what string, stderr *Buffer, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it listened:\n%s", what, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not start:\n%s", what, stderr.String())
	return ""
}

// Serve serves a on a loopback port until the test ends, then closes it,
// and returns its base URL.
func Serve(t testing.TB, a *app.App) string {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Not the test's context: the cleanup below cancels it, then waits.
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln, func(addr string) { ready <- addr }, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		a.Close()
	})
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-done:
		t.Fatalf("serve did not start: %v", err)
	}
	return ""
}

// App builds the app for the project in dir (its switchboard.yaml, with
// an empty environment), as a command run there would; it is closed when
// the test ends.
func App(t testing.TB, dir string) *app.App {
	t.Helper()
	cfg, err := config.Load(config.LoadOptions{Cwd: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}
