package sqlstore_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that a store leaves no goroutine behind once closed,
// group commits included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
