package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Grant is a path a command needs to read, found from the command itself,
// and why it is needed (for `switchboard doctor`).
type Grant struct {
	Path string
	Why  string
}

// Derive finds what the command name with args, started in dir with the
// environment env, needs to read beyond [SystemRead], so that a server
// started through node, npx, python, uvx or a plain binary runs confined
// without anyone listing where its package and interpreter live:
//
//   - the command, resolved on env's PATH and through symlinks
//     (node_modules/.bin/x is the package's own script);
//   - a script's interpreter from its #! line (/usr/bin/env node is node
//     on PATH), and an interpreter's installation: the prefix above its
//     bin/ (Node's lib/node_modules, Python's lib/ and site-packages), a
//     Python virtual environment and the installation it was made from;
//   - the script's package: the outermost node_modules above it (where
//     its dependencies are hoisted), else the nearest directory holding
//     package.json or pyproject.toml, else the script's directory;
//   - for npx and uvx, the package caches they run packages from: npm's
//     cache (~/.npm) and uv's cache, tools and Pythons.
//
// It reads files only (#! lines, pyvenv.cfg) and runs nothing. Files the
// command may change (those in or reached through writable, its write
// paths) are not believed: a confined server that rewrote its own #! line,
// pyvenv.cfg or node_modules/.bin link would otherwise choose what it may
// read after the next reload. From such a file only an interpreter's name
// is taken (node, python, ...), looked up on PATH. A path is
// never widened to /, to the home directory or to a directory above it:
// the command's own file is granted instead. Paths the system list covers
// are left out. The result holds absolute paths, each once.
func Derive(name string, args []string, dir string, env, writable []string) []Grant {
	d := &deriver{env: envMap(env), dir: dir}
	for _, w := range writable {
		if abs, err := filepath.Abs(w); err == nil {
			d.writable = append(d.writable, filepath.Clean(abs), realOr(abs))
		}
	}
	d.home = d.env["HOME"]
	path := d.lookPath(name)
	if path == "" {
		return nil
	}
	d.command(path, args, 0)
	return d.out
}

type deriver struct {
	env      map[string]string
	dir      string
	home     string
	writable []string // the write paths, as named and resolved
	out      []Grant
}

// changeable reports whether the command may change what path names: the
// path, a symlink it leads through at its end, or where it leads, lies in
// a write path.
func (d *deriver) changeable(path string) bool {
	p := filepath.Clean(path)
	for range 40 {
		for _, w := range d.writable {
			if p == w || within(p, w) {
				return true
			}
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = filepath.Clean(target)
	}
	r := realOr(path)
	for _, w := range d.writable {
		if r == w || within(r, w) {
			return true
		}
	}
	return false
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// lookPath finds name as the confined command will: a name with a slash
// against dir, another on the environment's PATH. It returns "" when
// there is no such file.
func (d *deriver) lookPath(name string) string {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			base := d.dir
			if base == "" {
				base, _ = os.Getwd()
			}
			name = filepath.Join(base, name)
		}
		if fi, err := os.Stat(name); err == nil && !fi.IsDir() {
			return filepath.Clean(name)
		}
		return ""
	}
	for _, p := range filepath.SplitList(d.env["PATH"]) {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		c := filepath.Join(p, name)
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return c
		}
	}
	return ""
}

// add records a grant unless the system paths or an earlier grant cover it.
func (d *deriver) add(path, why string) {
	if path == "" {
		return
	}
	path = filepath.Clean(path)
	for _, s := range SystemRead() {
		if path == s || within(path, s) {
			return
		}
	}
	if slices.ContainsFunc(d.out, func(g Grant) bool { return g.Path == path || within(path, g.Path) }) {
		return
	}
	// A wider grant replaces the narrower ones it holds.
	d.out = slices.DeleteFunc(d.out, func(g Grant) bool { return within(g.Path, path) })
	d.out = append(d.out, Grant{Path: path, Why: why})
}

// tooWide reports whether dir may not be granted on its own: /, the home
// directory or a directory above it.
func (d *deriver) tooWide(dir string) bool {
	dir = filepath.Clean(dir)
	if dir == "/" || dir == "." {
		return true
	}
	for _, h := range []string{d.home, realOr(d.home)} {
		if h != "" && (dir == filepath.Clean(h) || within(filepath.Clean(h), dir)) {
			return true
		}
	}
	return false
}

func realOr(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// command derives the needs of the program at path (as found, before
// symlinks) run with args; depth bounds #! chains.
func (d *deriver) command(path string, args []string, depth int) {
	real := realOr(path)
	prog := programOf(filepath.Base(path), filepath.Base(real))
	if d.changeable(path) {
		// Readable through the write path; of its #! line only the
		// name of a known interpreter is used, found on PATH.
		if prog == "" {
			if interp, iargs, ok := shebang(real); ok {
				name := filepath.Base(interp)
				if name == "env" && len(iargs) > 0 {
					name = iargs[0]
				}
				if kind := programOf(name); kind == "node" || kind == "python" {
					if ipath := d.lookPath(name); ipath != "" && !d.changeable(ipath) {
						d.interpreter(ipath, kind)
					}
				}
			}
		}
		return
	}
	if interp, iargs, ok := shebang(real); ok && depth < 4 {
		d.add(d.packageOf(real), "the command's package ("+filepath.Base(path)+" is "+real+")")
		ipath := d.lookPath(interp)
		if filepath.Base(interp) == "env" && len(iargs) > 0 {
			ipath = d.lookPath(iargs[0])
			iargs = iargs[1:]
		}
		if ipath != "" {
			// The script is the interpreter's first argument after
			// the #! line's own; npx-cli.js under node is still npx.
			if p := programOf(filepath.Base(real), ""); p != "" {
				d.interpreter(ipath, filepath.Base(ipath))
				d.program(p, args)
				return
			}
			d.command(ipath, append(append(iargs, real), args...), depth+1)
		}
		return
	}
	switch prog {
	case "node", "python":
		d.interpreter(path, prog)
	case "":
		if !d.tooWide(filepath.Dir(real)) && isInstallBin(real) {
			d.add(filepath.Dir(filepath.Dir(real)), "the command's installation (above "+real+")")
		}
		d.add(real, "the command")
		return
	default:
		d.add(real, "the command")
	}
	d.program(prog, args)
}

// isInstallBin reports whether a binary lies in the bin/ of an
// installation that also has lib/ (a prefix such as /opt/tool).
func isInstallBin(real string) bool {
	bin := filepath.Dir(real)
	if filepath.Base(bin) != "bin" {
		return false
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(bin), "lib"))
	return err == nil && fi.IsDir()
}

// programOf names the kind of program from its file names: node, python,
// npx, uvx, or "".
func programOf(names ...string) string {
	for _, n := range names {
		switch {
		case n == "node" || n == "nodejs" || n == "bun":
			return "node"
		case n == "python" || strings.HasPrefix(n, "python3") || strings.HasPrefix(n, "python2") || n == "pypy3":
			return "python"
		case n == "npx" || n == "npx-cli.js":
			return "npx"
		case n == "uvx" || n == "uv":
			return "uvx"
		}
	}
	return ""
}

// program adds what a known program reads besides its own installation.
func (d *deriver) program(prog string, args []string) {
	switch prog {
	case "node":
		if s := scriptArg(args, nodeValueFlags); s != "" && !d.changeable(d.abs(s)) {
			d.add(d.packageOf(d.abs(s)), "the script's package ("+s+")")
		}
	case "python":
		if slices.Contains(args, "-m") || slices.Contains(args, "-c") {
			return // a module comes from the installation or the cwd
		}
		if s := scriptArg(args, pythonValueFlags); s != "" && !d.changeable(d.abs(s)) {
			d.add(d.packageOf(d.abs(s)), "the script's package ("+s+")")
		}
	case "npx":
		cache := d.env["npm_config_cache"]
		if cache == "" && d.home != "" {
			cache = filepath.Join(d.home, ".npm")
		}
		if cache != "" {
			d.add(filepath.Join(cache, "_npx"), "packages npx installed (read-only: install them once outside the sandbox)")
			d.add(filepath.Join(cache, "_cacache"), "npm's package cache (read-only)")
		}
	case "uvx":
		cache, data := d.env["UV_CACHE_DIR"], d.env["XDG_DATA_HOME"]
		if cache == "" {
			if x := d.env["XDG_CACHE_HOME"]; x != "" {
				cache = filepath.Join(x, "uv")
			} else if d.home != "" {
				cache = filepath.Join(d.home, ".cache", "uv")
			}
		}
		if data == "" && d.home != "" {
			data = filepath.Join(d.home, ".local", "share")
		}
		d.add(cache, "uv's cache, where uvx keeps the environments it runs tools in (read-only: run the tool once outside the sandbox)")
		if data != "" {
			d.add(filepath.Join(data, "uv", "python"), "Pythons uv installed (read-only)")
			d.add(filepath.Join(data, "uv", "tools"), "tools uv installed (read-only)")
		}
	}
}

func (d *deriver) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	base := d.dir
	if base == "" {
		base, _ = os.Getwd()
	}
	return filepath.Join(base, p)
}

// Flags of node and python that take a value as the next argument.
var (
	nodeValueFlags   = []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "-C", "--conditions", "--title"}
	pythonValueFlags = []string{"-W", "-X", "-Q"}
)

// scriptArg returns the script an interpreter runs: its first argument
// that is not an option, or "" for code given inline (-e, -c, -p).
func scriptArg(args, valueFlags []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--eval" || a == "-p" || a == "--print" || a == "-c" || a == "-":
			return ""
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case slices.Contains(valueFlags, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// interpreter adds an interpreter's installation: the prefix above its
// bin/ when it is not the system's, and for Python a virtual environment
// with the installation it was made from.
func (d *deriver) interpreter(path, kind string) {
	if d.changeable(path) {
		return // readable through the write path; its links are the command's to change
	}
	real := realOr(path)
	// A virtual environment's python is a symlink to the base one; the
	// environment is found from the name, as Python finds it.
	if venv := filepath.Dir(filepath.Dir(path)); kind == "python" && fileExists(filepath.Join(venv, "pyvenv.cfg")) {
		d.add(venv, "the Python virtual environment of "+path)
		// A pyvenv.cfg the command may change names no home to believe.
		if cfg := filepath.Join(venv, "pyvenv.cfg"); !d.changeable(cfg) {
			if home := pyvenvHome(cfg); home != "" {
				d.prefix(filepath.Join(home, filepath.Base(real)), "the Python installation the virtual environment was made from")
			}
		}
	}
	d.prefix(real, kind+"'s installation ("+real+")")
}

// prefix grants the installation above bin/ that holds the binary real,
// or the binary alone where that would be too wide.
func (d *deriver) prefix(real, why string) {
	real = realOr(real)
	bin := filepath.Dir(real)
	if filepath.Base(bin) == "bin" && !d.tooWide(filepath.Dir(bin)) {
		d.add(filepath.Dir(bin), why)
		return
	}
	d.add(real, why)
}

func pyvenvHome(cfg string) string {
	f, err := os.Open(cfg)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "home" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// packageOf returns the directory holding the package of the script at
// path: the outermost node_modules above it, else the nearest directory
// with a package manifest up to four levels above it, else the script's own
// directory (or the script alone where that is too wide).
func (d *deriver) packageOf(path string) string {
	path = realOr(path)
	if i := strings.Index(path, "/node_modules/"); i >= 0 {
		return path[:i+len("/node_modules")]
	}
	// A few levels up (project/src/server.js), not to some distant
	// directory that happens to hold a manifest.
	for i, dir := 0, filepath.Dir(path); i < 4 && !d.tooWide(dir); i, dir = i+1, filepath.Dir(dir) {
		for _, m := range []string{"package.json", "pyproject.toml", "setup.py"} {
			if fileExists(filepath.Join(dir, m)) {
				return dir
			}
		}
	}
	if dir := filepath.Dir(path); !d.tooWide(dir) {
		return dir
	}
	return path
}

// shebang reads the #! line of the file at path: the interpreter and its
// arguments (env -S is taken apart as env would).
func shebang(path string) (string, []string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, false
	}
	defer func() { _ = f.Close() }()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return "", nil, false
	}
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return "", nil, false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, false
	}
	args := slices.DeleteFunc(fields[1:], func(a string) bool { return a == "-S" })
	return fields[0], args, true
}
