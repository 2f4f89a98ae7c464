package sandbox

import (
	"regexp"
	"strings"
)

// Denials the kernel reports to a confined program, as programs print them.
var (
	// node: "EACCES: permission denied, open '/x'"; Python:
	// "PermissionError: [Errno 13] Permission denied: '/x'".
	quotedDenial = regexp.MustCompile(`(?i)(?:EACCES|EPERM|permission denied|operation not permitted)[^'"\n]*['"]([^'"\n]+)['"]`)
	// node and Python for a path the sandbox leaves out (below /tmp, or
	// a covered path): "ENOENT: no such file or directory, open '/x'".
	quotedMissing = regexp.MustCompile(`(?i)(?:ENOENT|no such file or directory)[^'"\n]*['"](/[^'"\n]+)['"]`)
	// coreutils and shells: "cat: /x: Permission denied",
	// "sh: 1: cannot create /x: Permission denied".
	colonDenial = regexp.MustCompile(`(/[^\s:'"]+): (?:Permission denied|Operation not permitted)`)
	// node: "connect EACCES 127.0.0.1:80"; Go: "dial tcp 1.2.3.4:80:
	// connect: permission denied"; and an unreachable network.
	netDenial = regexp.MustCompile(`(?i)(?:connect E(?:ACCES|NETUNREACH|PERM) (\S+)|dial \w+ (\S+): connect: (?:permission denied|network is unreachable)|getaddrinfo EAI_AGAIN (\S+))`)
)

// Explain looks through the last lines a confined command wrote to stderr
// for what the sandbox refused it and returns one sentence naming the path
// or address, or "" when the lines show no denial. It reads what programs
// print (the kernel returns EACCES, EPERM or ENETUNREACH and leaves the
// wording to them), so it recognises the usual forms only. The shim's own
// messages ("switchboard sandbox: ...") are returned as they are.
func Explain(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "switchboard sandbox: "); ok {
			return msg
		}
	}
	for _, l := range lines {
		if m := netDenial.FindStringSubmatch(l); m != nil {
			return "the sandbox has no network and refused a connection to " + firstNonEmpty(m[1:]...) + " (set network: true to allow it)"
		}
		if m := quotedDenial.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], "/") {
			return "the sandbox refused access to " + m[1] + " (add it, or a directory above it, to the sandbox's read or write paths)"
		}
		if m := colonDenial.FindStringSubmatch(l); m != nil {
			return "the sandbox refused access to " + m[1] + " (add it, or a directory above it, to the sandbox's read or write paths)"
		}
	}
	for _, l := range lines {
		if m := quotedMissing.FindStringSubmatch(l); m != nil {
			return m[1] + " does not exist inside the sandbox (if it exists outside, add it, or a directory above it, to the sandbox's read paths)"
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// shimCannotRun is the shim's own message when it cannot start the command.
var shimCannotRun = regexp.MustCompile(`^switchboard sandbox: cannot run (/[^:]+): `)

// Refused returns the path the lines [Explain] reads show the sandbox
// refused (or left out), or "" when they name none: what a person adds to
// the read paths. A connection refused is no path and gives "".
func Refused(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if m := shimCannotRun.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil {
			return m[1]
		}
	}
	for _, l := range lines {
		if netDenial.MatchString(l) {
			return ""
		}
		if m := quotedDenial.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], "/") {
			return m[1]
		}
		if m := colonDenial.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	for _, l := range lines {
		if m := quotedMissing.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}
