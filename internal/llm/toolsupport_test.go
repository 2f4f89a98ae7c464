package llm_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// TestToolReportsOnce: many callers at once cause one probe; later ones
// are answered from memory.
func TestToolReportsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c llm.ToolReports
		var probes atomic.Int32
		release := make(chan struct{})
		want := llm.ToolReport{Answer: llm.ToolsText, Source: "ollama", Reason: `no "tools" capability`}
		probe := func(context.Context) llm.ToolReport {
			probes.Add(1)
			<-release
			return want
		}
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if got, err := c.Get(t.Context(), "m", probe); err != nil || got != want {
					t.Errorf("Get = %+v, %v", got, err)
				}
			})
		}
		synctest.Wait() // one caller in the probe, the rest waiting for it
		close(release)
		wg.Wait()
		if n := probes.Load(); n != 1 {
			t.Errorf("%d probes, want 1", n)
		}
		if _, err := c.Get(t.Context(), "other", probe); err != nil || probes.Load() != 2 {
			t.Errorf("another model: %v after %d probes, want a second probe", err, probes.Load())
		}
	})
}

// TestToolReportsProberLeaves: when the caller that probes gives up, its
// report is not remembered and a caller waiting meanwhile probes instead.
func TestToolReportsProberLeaves(t *testing.T) {
	var c llm.ToolReports
	started := make(chan struct{})
	first, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(first, "m", func(ctx context.Context) llm.ToolReport {
			close(started)
			<-ctx.Done()
			return llm.ToolReport{Reason: "cut short"}
		})
		errc <- err
	}()
	<-started
	waited := make(chan llm.ToolReport, 1)
	go func() {
		r, _ := c.Get(t.Context(), "m", func(context.Context) llm.ToolReport {
			return llm.ToolReport{Answer: llm.ToolsNative, Reason: "second prober"}
		})
		waited <- r
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the prober that left got %v, want context.Canceled", err)
	}
	if r := <-waited; r.Reason != "second prober" {
		t.Errorf("the waiter got %+v, want its own probe's report", r)
	}
}

// TestToolReportsWaiterLeaves: a waiter bounded by its own context does not
// wait for a slow probe.
func TestToolReportsWaiterLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c llm.ToolReports
		release, started := make(chan struct{}), make(chan struct{})
		go c.Get(t.Context(), "m", func(context.Context) llm.ToolReport {
			close(started)
			<-release
			return llm.ToolReport{}
		})
		<-started
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := c.Get(ctx, "m", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiter got %v, want context.DeadlineExceeded", err)
		}
		close(release)
	})
}

func TestToolReportSupports(t *testing.T) {
	for _, tc := range []struct {
		r    llm.ToolReport
		want bool
		err  error
	}{
		{llm.ToolReport{Answer: llm.ToolsNative}, true, nil},
		{llm.ToolReport{Answer: llm.ToolsText}, false, nil},
		{llm.ToolReport{Reason: "silent"}, false, llm.ErrToolSupportUnknown},
	} {
		got, err := tc.r.Supports()
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%+v.Supports() = %v, %v; want %v, %v", tc.r, got, err, tc.want, tc.err)
		}
	}
}
