// Package version reports how this Switchboard binary was built. It is a leaf:
// any package may import it.
package version

import (
	"runtime/debug"
	"sync"
)

// Version is set at link time with -ldflags "-X .../internal/version.Version=v1.2.3";
// when empty, the module version or VCS revision from the build info is used.
var Version string

var info = sync.OnceValue(func() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev + dirty
})

// String returns the version of the running binary, never empty.
func String() string { return info() }
