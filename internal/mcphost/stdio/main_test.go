package stdio

import (
	"testing"

	"go.uber.org/goleak"
)

// A Conn owns a reader and a waiter goroutine each; none may outlive a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
