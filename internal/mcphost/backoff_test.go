package mcphost

import (
	"testing"
	"time"
)

func TestBackoffDelay(t *testing.T) {
	const initial, ceiling = 500 * time.Millisecond, 30 * time.Second
	tests := []struct {
		n    int
		r    float64
		want time.Duration
	}{
		{1, 0.5, 500 * time.Millisecond},
		{2, 0.5, time.Second},
		{3, 0.5, 2 * time.Second},
		{7, 0.5, 30 * time.Second}, // 32s capped
		{100, 0.5, 30 * time.Second},
		{1, 0, 400 * time.Millisecond}, // jitter -20%
		{1, 0.999999, 600*time.Millisecond - 100*time.Nanosecond},
	}
	for _, tt := range tests {
		got := backoffDelay(tt.n, initial, ceiling, tt.r)
		if diff := got - tt.want; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("backoffDelay(%d, r=%v) = %v, want %v", tt.n, tt.r, got, tt.want)
		}
	}
}
