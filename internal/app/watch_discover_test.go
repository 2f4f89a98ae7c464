package app

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// lockedBuffer is a log destination the watcher's goroutine writes while
// the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDiscoveredConfigRefusedForTrust: serve started without a config
// file; one appears where discovery looks while it runs. Not trusted yet,
// it is refused: a log line and ConfigProblems (so /readyz and the web
// notice) name `switchboard config trust`, and nothing it says is applied.
func TestDiscoveredConfigRefusedForTrust(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Cwd: dir, Getenv: getenv})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != "" {
		t.Fatalf("a config was found at start: %s", cfg.Source)
	}
	cfg.Data = filepath.Join(dir, "data")
	var logs lockedBuffer
	a, err := New(cfg, &Options{Reload: load, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { a.followConfig(ctx, load) })
	defer func() { cancel(); wg.Wait() }()

	// The file appears after the read the watcher makes when it begins,
	// so only the watch of discovery's places can find it.
	poll(t, "the first read", func() bool { return strings.Contains(logs.String(), "reading the configuration") })
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte("defaultModel: planted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	poll(t, "the discovered file refused", func() bool { return a.ConfigProblems() != nil })
	if p := strings.Join(a.ConfigProblems(), "\n"); !strings.Contains(p, "switchboard config trust") {
		t.Errorf("problems %q do not say how to accept the file", p)
	}
	if l := logs.String(); !strings.Contains(l, "configuration edit refused") || !strings.Contains(l, "switchboard.yaml") {
		t.Errorf("no log line names the refused file:\n%s", l)
	}
	if got := a.config().DefaultModel; got == "planted" {
		t.Error("the untrusted file was applied")
	}
}
