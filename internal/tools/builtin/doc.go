// Package builtin provides Switchboard's native tools: read_file, write_file,
// edit_file, list_dir, grep, terminal, calculator, current_time and
// read_tool_output. [New] builds them from [Options]; each is a [tools.Tool].
//
// Layer: adapter. It imports the tools contract, package sandbox and the
// standard library only; only the composition root (internal/app) should
// import it.
//
// # Security model
//
// The file tools (read_file, write_file, edit_file, list_dir, grep) may touch
// only the configured roots. Every path argument is mapped to one root first:
// a relative path is relative to the first root, an absolute path must lie
// lexically inside a root (as configured, or with the root's own symlinks
// evaluated), and a path whose cleaned form climbs out with ".." is refused.
// All file access then goes through an [os.Root] opened on that root, which
// resolves every component, including symlinks, inside the root with
// openat-style calls and fails atomically when a component would escape. So a
// symlink that points out (at the leaf or at any middle component), or a
// component swapped for such a symlink between a check and the use, cannot
// lead outside: there is no check-then-use window on path strings. Symlinks
// that stay inside the root work normally. Files are opened non-blocking and
// checked with fstat after opening, so device files, FIFOs and sockets are
// refused without blocking on them. Directory walks (list_dir, grep) read
// directories through the same [os.Root] and never follow symlinks.
//
// Errors name the allowed roots so that a model can correct itself, e.g.
// path "/etc/passwd" is outside the allowed roots (/home/u/proj); use a path
// inside one of them.
//
// The roots themselves are trusted operator configuration: they are opened
// anew for each call, by name.
//
// terminal runs a shell command through package sandbox. Where the kernel
// supports it (and Options.TerminalSandbox is not off) the command is
// confined: it reads the system and the roots, writes only the roots and a
// private /tmp, has no network unless the policy allows it, and sees neither
// other processes nor the policy's hidden paths (Switchboard's data directory
// and config file). Elsewhere it runs as the Switchboard process's user and
// can reach anything that user can, and its description says so. Either way
// its environment is the minimal base plus TerminalInheritEnv, it is marked
// destructive (so the agent asks for approval by default), and it is bounded
// in time and output, with the whole process group killed on timeout or
// cancellation.
//
// read_tool_output reads only files named <id>.txt directly inside the
// directory of the calling user under Options.OutputDir
// ([tools.UserOutputDir] of [tools.UserOf] the call's context), with ids
// restricted to [A-Za-z0-9_-]{1,80}: another user's output is "not found"
// whatever its ID.
package builtin
