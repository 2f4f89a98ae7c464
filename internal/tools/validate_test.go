package tools

import (
	"strings"
	"testing"
)

func TestJSONDeeperThan(t *testing.T) {
	for _, max := range []int{0, 1, 3, 1000} {
		for _, n := range []int{max - 1, max, max + 1} {
			if n < 0 {
				continue
			}
			nested := strings.Repeat(`{"a":[`, n/2) + strings.Repeat("[", n%2) + "1" + strings.Repeat("]", n%2) + strings.Repeat("]}", n/2)
			if got, want := JSONDeeperThan([]byte(nested), max), n > max; got != want {
				t.Errorf("depth %d, max %d: %v, want %v", n, max, got, want)
			}
			// Brackets inside strings, escaped quotes included, do not count.
			quoted := `["` + strings.Repeat(`[\"{`, n+2) + `"]`
			if got, want := JSONDeeperThan([]byte(quoted), max), max < 1; got != want {
				t.Errorf("brackets in a string, max %d: %v, want %v", max, got, want)
			}
		}
	}
}
