package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// crashEnv names the database the test binary, run again by TestCrash,
// writes to until it is killed.
const crashEnv = "SWITCHBOARD_TEST_CRASH_DSN"

// TestMain checks that Close stops every goroutine the database pools
// start, or runs as TestCrash's child.
func TestMain(m *testing.M) {
	if dsn := os.Getenv(crashEnv); dsn != "" {
		db, err := postgres.Open(context.Background(), dsn, nil)
		if err == nil {
			err = storetest.CrashChild(db, os.Stdout)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}
