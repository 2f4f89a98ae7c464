package sandbox

import (
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
)

// baseNames are the variables every child gets from Switchboard's own
// environment: what programs need to find themselves, their user and their
// locale, and nothing that usually holds a secret. It follows the TypeScript
// MCP SDK's getDefaultEnvironment, plus locale and temp variables.
func baseNames(goos string) []string {
	if goos == "windows" {
		return []string{
			"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP",
			"USERNAME", "USERPROFILE", "WINDIR",
		}
	}
	return []string{"HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"}
}

// isBase reports whether name is in the minimal base: one of baseNames or a
// locale variable (LC_*).
func isBase(goos, name string) bool {
	if goos == "windows" {
		return slices.ContainsFunc(baseNames(goos), func(b string) bool { return strings.EqualFold(b, name) })
	}
	return slices.Contains(baseNames(goos), name) || strings.HasPrefix(name, "LC_")
}

// Environ returns a child's environment: the minimal base taken from parent
// (PATH, HOME, USER, LOGNAME, SHELL, TERM, TZ, TMPDIR, LANG and LC_*, or the
// Windows equivalents), the parent's variables whose names match one of the
// inherit globs ([path.Match] syntax, e.g. "AWS_*"), then extra, which wins
// over both. Values that are shell functions ("() {...") are left out of
// the base, as the TypeScript SDK does. Malformed entries of parent are
// dropped. The result is sorted by name so it is stable.
func Environ(parent, inherit []string, extra map[string]string) []string {
	return environ(runtime.GOOS, parent, inherit, extra)
}

func environ(goos string, parent, inherit []string, extra map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch {
		case isBase(goos, name) && !strings.HasPrefix(value, "()"):
		case matchAny(inherit, name):
		default:
			continue
		}
		vars[name] = value
	}
	for k, v := range extra {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// Names returns the variable names of env (as [Environ] returns it), for
// reports that must never show values.
func Names(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		out = append(out, name)
	}
	return out
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
