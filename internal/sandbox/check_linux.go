package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Support says whether this system can confine commands, and why not.
type Support struct {
	Available bool
	// Reason says what is missing when !Available, e.g. "user namespaces
	// are disabled (kernel.unprivileged_userns_clone=0)".
	Reason string
	// LandlockABI is the kernel's Landlock ABI version; 0 means none.
	LandlockABI int
}

// Check looks at the running kernel: Landlock and user namespaces must be
// available to this user. It is cheap (a system call and a few /proc
// reads) and holds no state, so each caller decides when to ask.
func Check() Support {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	s := Support{LandlockABI: int(abi)}
	if errno != 0 {
		s.LandlockABI = 0
		s.Reason = "the kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= boot list): " + errno.Error()
		return s
	}
	if n, ok := sysctl("/proc/sys/user/max_user_namespaces"); ok && n == 0 {
		s.Reason = "user namespaces are disabled (user.max_user_namespaces=0)"
		return s
	}
	if os.Geteuid() != 0 {
		if n, ok := sysctl("/proc/sys/kernel/unprivileged_userns_clone"); ok && n == 0 {
			s.Reason = "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)"
			return s
		}
		if n, ok := sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && n != 0 {
			s.Reason = "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"
			return s
		}
	}
	s.Available = true
	return s
}

func sysctl(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}
