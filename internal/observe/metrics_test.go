package observe

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// TestObserveHTTPKeepsStandardSeries: every request is counted under its
// route, method and status, and only standard methods' series are kept,
// so a client inventing methods cannot grow the kept set.
func TestObserveHTTPKeepsStandardSeries(t *testing.T) {
	m := NewMetrics()
	for range 2 {
		m.ObserveHTTP("/mcp", "POST", 200, time.Millisecond)
	}
	m.ObserveHTTP("/mcp", "BREW", 200, time.Millisecond)
	m.ObserveHTTP("/mcp", "POST", 500, time.Millisecond)
	for _, c := range []struct {
		method, status string
		want           float64
	}{{"POST", "200", 2}, {"BREW", "200", 1}, {"POST", "500", 1}} {
		var got dto.Metric
		if err := m.httpRequests.WithLabelValues("/mcp", c.method, c.status).Write(&got); err != nil {
			t.Fatal(err)
		}
		if got.GetCounter().GetValue() != c.want {
			t.Errorf("%s %s counted %v times, want %v", c.method, c.status, got.GetCounter().GetValue(), c.want)
		}
	}
	kept := 0
	m.httpSeries.Range(func(k, _ any) bool {
		kept++
		if k.(httpKey).method == "BREW" {
			t.Errorf("the made-up method's series is kept")
		}
		return true
	})
	if kept != 2 {
		t.Errorf("%d series kept, want 2", kept)
	}
}
