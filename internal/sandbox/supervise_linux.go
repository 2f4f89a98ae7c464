package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwarded are the signals the shim passes on to the command's process
// group: how Switchboard asks a command to stop.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// supervise starts the command and stays as its init: it forwards
// termination signals, reaps every orphan of the sandbox, and returns the
// command's exit status (128+n when a signal n ended it). When supervise
// returns the shim exits, and the kernel kills what is left in the pid
// namespace.
func supervise(path string, argv []string, stderr io.Writer) int {
	sigs := make(chan os.Signal, 16) // a burst of SIGCHLD collapses; reaping loops anyway
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD}, forwarded...)...)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		// A session of its own: no controlling terminal to inject input
		// into, and a process group the shim can signal as a whole.
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		code, hint := exitCannotExec, ""
		switch {
		case errors.Is(err, syscall.ENOENT):
			code = exitNotFound
			hint = " (inside the sandbox only the read and write paths exist: add its directory to the sandbox's read paths)"
		case errors.Is(err, syscall.EACCES):
			hint = " (the sandbox does not allow reading it or its interpreter: add its directory to the sandbox's read paths)"
		}
		fmt.Fprintf(stderr, "switchboard sandbox: cannot run %s: %v%s\n", path, err, hint)
		return code
	}
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			_ = syscall.Kill(-pid, sig.(syscall.Signal))
			continue
		}
		for {
			var ws unix.WaitStatus
			got, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || got <= 0 {
				break
			}
			if got != pid {
				continue // an orphan of the sandbox
			}
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
	}
	return exitSetup // unreachable: sigs is never closed
}
