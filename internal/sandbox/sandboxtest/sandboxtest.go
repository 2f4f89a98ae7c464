// Package sandboxtest helps tests that try to get out of the sandbox of
// package sandbox: it decides whether such a test can run here, opens
// listeners that count what reaches them, and finds processes by a marker
// in their command line.
//
// Layer: test support; only tests may import it.
package sandboxtest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// Require skips tb where this system cannot sandbox, and fails it instead
// under CI (env CI set), whose machine must.
func Require(tb testing.TB) {
	tb.Helper()
	if s := sandbox.Check(); !s.Available {
		if os.Getenv("CI") != "" {
			tb.Fatalf("the sandbox must be available in CI: %s", s.Reason)
		}
		tb.Skipf("no sandbox here: %s", s.Reason)
	}
}

// Listen listens on network ("tcp4", "unix") at addr and returns the
// address and a function that reports whether anything connected. A
// connection the client has finished may still wait in the kernel's queue,
// so the function waits up to a second for one before it reports false.
// The listener closes when the test ends; a failure to listen fails tb.
func Listen(tb testing.TB, network, addr string) (string, func() bool) {
	tb.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), network, addr)
	if err != nil {
		tb.Fatalf("listening on %s %s: %v", network, addr, err)
	}
	var n atomic.Int32
	got := make(chan struct{}) // closed at the first connection
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if n.Add(1) == 1 {
				close(got)
			}
			_ = c.Close()
		}
	}()
	tb.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String(), func() bool {
		select {
		case <-got:
			return true
		case <-time.After(time.Second):
			return false
		}
	}
}

// ProcessesWith returns the pids, as the host sees them, of the live
// processes whose command line contains marker; zombies are left out.
func ProcessesWith(marker string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			rest := string(st[strings.LastIndexByte(string(st), ')')+1:])
			if f := strings.Fields(rest); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// Variant is one way of doing the same thing, for [Interleave].
type Variant struct {
	Name string
	Run  func() error
}

// Interleave runs every variant once per benchmark iteration, in
// alternating order (A B C, C B A, ...), so that a noisy machine's load
// hits all of them alike, and reports each variant's median as
// "<name>-ms/<unit>"; ns/op is the time of one round.
func Interleave(b *testing.B, unit string, vs ...Variant) {
	b.Helper()
	took := make([][]time.Duration, len(vs))
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	for b.Loop() {
		for _, k := range order {
			start := time.Now()
			if err := vs[k].Run(); err != nil {
				b.Fatalf("%s: %v", vs[k].Name, err)
			}
			took[k] = append(took[k], time.Since(start))
		}
		slices.Reverse(order)
	}
	for k, v := range vs {
		slices.Sort(took[k])
		b.ReportMetric(took[k][len(took[k])/2].Seconds()*1000, v.Name+"-ms/"+unit)
	}
}
