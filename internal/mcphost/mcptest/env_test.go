package mcptest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStdioServerConfig(t *testing.T) {
	sc := StdioServer(t, "x", ModeNormal, ModeSlowStart)
	exe, _ := os.Executable()
	if sc.Command != exe || sc.Env[EnvMode] != "normal,slowstart" || sc.Env[EnvID] != "x" || EventsFile(sc) == "" {
		t.Errorf("config = %+v", sc)
	}
	if def := StdioServer(t, "y"); def.Env[EnvMode] != ModeNormal {
		t.Errorf("default mode = %q, want normal", def.Env[EnvMode])
	}
}

func TestEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events")
	l := &eventLog{path: path}
	l.add("pid", "42", "a")
	l.add("grandchild", "43")
	l.add("start", "a")
	if diff := cmp.Diff([]string{"pid 42 a", "grandchild 43", "start a"}, ReadEvents(path)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if n := CountEvents(path, "start "); n != 1 {
		t.Errorf("CountEvents = %d, want 1", n)
	}
	if got := WaitEvent(t, path, "grandchild", time.Second); got != "grandchild 43" {
		t.Errorf("WaitEvent = %q", got)
	}
	sc := StdioServer(t, "z")
	sc.Env[EnvEvents] = path
	if diff := cmp.Diff([]int{42, 43}, PIDs(sc)); diff != "" {
		t.Errorf("PIDs mismatch (-want +got):\n%s", diff)
	}
	if ReadEvents(filepath.Join(t.TempDir(), "none")) != nil {
		t.Error("events of a missing file are not nil")
	}
}
