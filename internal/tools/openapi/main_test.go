package openapi

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: the package owns
// none, so any left would be a response body not closed or a call that did
// not return.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
