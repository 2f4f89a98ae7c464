package sandbox

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// devices are the device files every program may use.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// restrict restricts this process and everything it starts to the
// policy's paths: read and execute below Read (and the fresh /proc), read
// and write below Write (and the private /tmp and /dev/shm), nothing
// elsewhere; without network, no TCP bind or connect; always, no signals
// and no abstract unix sockets to processes outside the sandbox. ABI 7 is
// what this was written and tested against; on older kernels, best effort
// keeps what they support (namespaces still hide and cut the rest).
func restrict(sp *spec) error {
	cfg := landlock.V7.BestEffort()
	if sp.Network {
		cfg.HandledAccessNet = 0
	}
	var roDirs, roFiles, rwDirs, rwFiles []string
	sortPath := func(p string, dirs, files *[]string) {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			// Missing: nothing to allow.
		case st.IsDir():
			*dirs = append(*dirs, p)
		default:
			*files = append(*files, p)
		}
	}
	for _, p := range append(sp.Read, "/proc") {
		sortPath(p, &roDirs, &roFiles)
	}
	for _, p := range append(sp.Write, "/tmp", "/dev/shm") {
		sortPath(p, &rwDirs, &rwFiles)
	}
	for _, p := range devices {
		sortPath(p, &rwDirs, &rwFiles)
	}
	rules := []landlock.Rule{
		landlock.RODirs(roDirs...).IgnoreIfMissing(),
		landlock.ROFiles(roFiles...).IgnoreIfMissing(),
		// Refer: moving files between directories inside the write paths.
		landlock.RWDirs(rwDirs...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(rwFiles...).IgnoreIfMissing(),
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("applying landlock: %w", err)
	}
	return nil
}
