package web_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the browser tests' stacks (server, agent runtime,
// store) and chromedp stop every goroutine they start.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
