// Package sandbox starts a command under a policy: a minimal environment,
// its own process group, a signal when Switchboard dies, and, where the
// kernel supports it and the policy asks, confinement by the kernel.
//
// Layer: leaf. It imports the standard library, golang.org/x/sys and
// go-landlock only; the terminal tool (internal/tools/builtin) and the stdio
// MCP servers (internal/mcphost) both start their children through it, so
// both speak the same policy language.
//
// # How a confined command starts (Linux)
//
// [Command] returns an [exec.Cmd] that re-executes the Switchboard binary
// (or, in tests, the test binary) as a small shim in new user, mount, pid
// and IPC namespaces, plus a new network namespace when the policy has no
// network. The binary's main (or TestMain) hands control to [Shim] before
// anything else. The shim, as pid 1 of its namespace:
//
//  1. mounts a fresh /proc (only the sandbox's own processes are in it)
//     and empty tmpfs on /tmp, /dev/shm and /run (whose sockets Landlock
//     before ABI 9 does not guard), binding back the policy's paths that
//     lie below them;
//  2. covers every Hide path (Switchboard's data directory and config
//     file, root-only files under /etc, and where [Policy.Protected] says
//     Switchboard's files are now) with an empty read-only tmpfs or
//     /dev/null, so they cannot be read even below a Read or Write path,
//     after binding each of their parents below a Write path onto itself:
//     a mount point cannot be renamed, so the command cannot move a hidden
//     path away from its cover or out of the next sandbox's sight;
//  3. caps the number of processes (RLIMIT_NPROC, and the pid namespace's
//     pid_max, which also binds root), open files, CPU time and memory;
//  4. applies Landlock: read and execute below Read, read and write below
//     Write, nothing else; no TCP bind or connect without network; no
//     signals or abstract unix sockets to processes outside the sandbox;
//  5. drops every capability and starts the command in a session of its
//     own, forwards termination signals to it, reaps orphans, and exits
//     with the command's status. When the shim exits or is killed, the
//     kernel kills every process left in the pid namespace, so nothing
//     outlives a command; when Switchboard dies, the shim gets SIGKILL
//     (parent-death signal) and the same happens.
//
// Before step 1 the shim closes every descriptor it inherited, and before
// step 5 it marks the rest close-on-exec: the command gets 0, 1 and 2 only.
// The policy's paths are those [Policy.Pin] resolved when the configuration
// was applied, checked by device and inode at each start. When Switchboard
// runs as root, root inside the namespace is nobody (65534) outside, so
// files are checked for the sandbox as for any other user; its write paths
// are then lent to it as idmapped mounts, made by the parent and moved into
// place by the shim in step 1.
//
// [Derive] finds what a command needs to read beyond the system (its
// package, its interpreter's installation, npx's and uv's caches), so that
// a policy need not list it by hand; [InstalledNPX] turns a confined
// `npx pkg` into the installed package's script. [Policy.Details] and
// [Refused] say, for people, what was derived and what to add.
//
// An unconfined command ([Policy.Confine] false, or other platforms) gets
// only the environment, its own process group and, on Linux, the
// parent-death signal; its grandchildren may outlive it.
//
// The package holds no state: [Shim] is a function of its arguments, and
// [Check] looks at the kernel each time it is called.
package sandbox
