package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// crashEnv names the database the test binary, run again by TestCrash,
// writes to until it is killed.
const crashEnv = "SWITCHBOARD_TEST_CRASH_DB"

// crashLaterEnv is crashEnv for TestCrashFinishLater's child.
const crashLaterEnv = "SWITCHBOARD_TEST_CRASH_LATER_DB"

// crashBigEnv is crashEnv for TestCrashWhileJournalMoves's child.
const crashBigEnv = "SWITCHBOARD_TEST_CRASH_BIG_DB"

// TestMain checks that Close stops every goroutine the database pools
// start, or runs as TestCrash's child.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		db, err := sqlite.Open(context.Background(), path, nil)
		if err == nil {
			err = storetest.CrashChild(db, os.Stdout)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if path := os.Getenv(crashLaterEnv); path != "" {
		db, err := sqlite.Open(context.Background(), path, nil)
		if err == nil {
			err = storetest.CrashChildLater(db, os.Stdout)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if path := os.Getenv(crashBigEnv); path != "" {
		db, err := sqlite.Open(context.Background(), path, nil)
		if err == nil {
			err = storetest.CrashChild(bigArgs{db}, os.Stdout)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}
