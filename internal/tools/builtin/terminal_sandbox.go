package builtin

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// confinement is how terminal runs its commands, decided once when the
// tool is built.
type confinement struct {
	policy *sandbox.Policy // nil: unconfined
	// refuse, when set, is why every call fails: the sandbox is required
	// and this system cannot provide it.
	refuse string
	// about describes the confinement for the tool's description.
	about string
}

// newConfinement decides from the options and s, what [sandbox.Check]
// reports for this system.
func newConfinement(rs *roots, o *Options, s sandbox.Support) confinement {
	mode := o.TerminalSandbox
	if mode == "" {
		mode = SandboxAuto
	}
	switch {
	case mode == SandboxOff:
		return confinement{about: "Not sandboxed (builtin.terminal.sandbox is off): commands run with Switchboard's full permissions and can read and change anything its user can, reach the network, and read its data directory. Prefer the file tools for reading and editing files."}
	case !s.Available && mode == SandboxRequired:
		return confinement{
			refuse: "the terminal sandbox is required (builtin.terminal.sandbox: required) but this system cannot provide it: " + s.Reason,
			about:  "Unavailable: the sandbox is required but this system cannot provide it (" + s.Reason + "); every call fails.",
		}
	case !s.Available:
		return confinement{about: "Not sandboxed: " + s.Reason + ". Commands run with Switchboard's full permissions and can read and change anything its user can. Prefer the file tools for reading and editing files."}
	}
	p := o.TerminalPolicy
	p.Confine = true
	dirs := make([]string, 0, len(rs.list))
	for _, r := range rs.list {
		dirs = append(dirs, r.dir)
	}
	p.Read = append(append(append([]string{}, sandbox.SystemRead()...), p.Read...), dirs...)
	p.Write = append(append([]string{}, p.Write...), dirs...)
	p.Hide = append(append([]string{}, p.Hide...), sandbox.SystemHide()...)
	// Resolved now, once: a command cannot redirect them for the next one.
	p.Pin()
	net := "There is no network: connections fail with \"permission denied\" or \"network is unreachable\"."
	if p.Network {
		net = "The network is reachable."
	}
	return confinement{
		policy: &p,
		about: fmt.Sprintf("Sandboxed by the kernel: commands can read the system's programs and libraries (/usr, /etc, ...) and the allowed roots, "+
			"and write only inside the roots (%s) and a private, empty /tmp. %s Other processes, Switchboard's data directory and its "+
			"configuration are not visible, and the folders above them cannot be renamed (\"Device or resource busy\"); the home directory is not readable, so tools that need caches there (npx, go) may fail. "+
			"A \"Permission denied\" or \"No such file or directory\" outside the roots is the sandbox.",
			strings.Join(dirs, ", "), net),
	}
}
