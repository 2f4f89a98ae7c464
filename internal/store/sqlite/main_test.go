package sqlite_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that Close stops every goroutine the database pools start.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
