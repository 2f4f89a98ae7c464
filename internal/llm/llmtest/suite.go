package llmtest

import (
	"testing"
)

// Run runs the conformance suite against the adapter h describes. Every
// adapter's test calls it:
//
//	func TestConformance(t *testing.T) { llmtest.Run(t, harness) }
func Run(t *testing.T, h Harness) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, &h) })
	}
}

type suiteCase struct {
	name string
	run  func(t *testing.T, h *Harness)
}

var cases = []suiteCase{}
