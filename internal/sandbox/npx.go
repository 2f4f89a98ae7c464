package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InstalledNPX returns what `npx args...` would run when the package it
// names is already installed in npx's cache (npm_config_cache, else
// ~/.npm, from env): the package's bin script and the arguments that
// follow the package. ok is false for any other command, for npx options
// it does not follow (--package, --call) and when npx would first have to
// install the package or ask the registry.
//
// A confined server cannot be started through npx itself: npx writes its
// cache at every start (index entries, logs, a new install for a new
// spec), and the sandbox keeps the cache read-only, so that a confined
// server cannot change packages that npx later runs unconfined. Running the
// installed script directly needs no write and no network, and starts
// faster. A package never run outside the sandbox is not found: run the
// npx command once by hand, or install the package and name its
// node_modules/.bin script.
//
// A cache in or reached through one of writable (the server's write paths)
// is not believed, and the script must lie inside its package: a confined
// server able to write the cache could otherwise name any file as the
// command, which [Derive] would then grant.
func InstalledNPX(name string, args, env, writable []string) (bin string, rest []string, ok bool) {
	if base := filepath.Base(name); base != "npx" {
		return "", nil, false
	}
	spec, rest, ok := npxSpec(args)
	if !ok {
		return "", nil, false
	}
	pkg, version := splitSpec(spec)
	e := envMap(env)
	cache := e["npm_config_cache"]
	if cache == "" {
		if e["HOME"] == "" {
			return "", nil, false
		}
		cache = filepath.Join(e["HOME"], ".npm")
	}
	dirs, err := filepath.Glob(filepath.Join(cache, "_npx", "*"))
	if err != nil {
		return "", nil, false
	}
	guard := &deriver{}
	for _, w := range writable {
		if abs, err := filepath.Abs(w); err == nil {
			guard.writable = append(guard.writable, filepath.Clean(abs), realOr(abs))
		}
	}
	for _, d := range dirs {
		if guard.changeable(d) || guard.changeable(filepath.Join(d, "node_modules")) {
			continue
		}
		var m struct {
			NPX struct {
				Packages []string `json:"packages"`
			} `json:"_npx"`
		}
		if !readJSON(filepath.Join(d, "package.json"), &m) || !slices.Contains(m.NPX.Packages, spec) && !slices.Contains(m.NPX.Packages, pkg) {
			continue
		}
		dir := filepath.Join(d, "node_modules", filepath.FromSlash(pkg))
		var p struct {
			Version string          `json:"version"`
			Bin     json.RawMessage `json:"bin"`
		}
		if !readJSON(filepath.Join(dir, "package.json"), &p) {
			continue
		}
		// A spec npx installed as such is what it names; another version
		// asked for is not this one.
		if version != "" && version != "latest" && version != p.Version && !slices.Contains(m.NPX.Packages, spec) {
			continue
		}
		if script := binOf(pkg, p.Bin); script != "" {
			// The sandbox runs the file by the name given, and grants
			// the directories its name resolves to.
			bin := realOr(filepath.Join(dir, filepath.FromSlash(script)))
			if !within(bin, realOr(dir)) {
				continue // a bin outside its package is no package's script
			}
			return bin, rest, true
		}
	}
	return "", nil, false
}

// npxSpec returns the package npx's arguments name and the arguments after
// it, skipping the options that do not change what runs.
func npxSpec(args []string) (string, []string, bool) {
	for i, a := range args {
		switch {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet" || a == "--prefer-offline" || a == "--offline" || a == "--no-install":
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], args[i+2:], true
			}
			return "", nil, false
		case strings.HasPrefix(a, "-"):
			return "", nil, false // --package, --call, -c: not followed
		default:
			return a, args[i+1:], true
		}
	}
	return "", nil, false
}

// splitSpec splits "@scope/name@1.2.3" into the package and the version.
func splitSpec(spec string) (string, string) {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return spec, ""
	}
	return spec[:at], spec[at+1:]
}

// binOf returns the script of a package's bin field that npx runs: the one
// bin, or the one named as the package without its scope.
func binOf(pkg string, raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many map[string]string
	if json.Unmarshal(raw, &many) != nil {
		return ""
	}
	if s, ok := many[pkg[strings.LastIndex(pkg, "/")+1:]]; ok {
		return s
	}
	if len(many) == 1 {
		for _, s := range many {
			return s
		}
	}
	return ""
}

func readJSON(path string, v any) bool {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}
