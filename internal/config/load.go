package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// LoadOptions tell [Load] where to look. The zero value reads the real
// environment, the real disk and the process's working directory.
type LoadOptions struct {
	// Path is an explicit config file (the --config flag); empty means
	// search, see [Find].
	Path string
	// Cwd is the working directory; empty means os.Getwd.
	Cwd string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ReadFile reads a file; nil means os.ReadFile. It must return an error
	// wrapping fs.ErrNotExist for a missing file.
	ReadFile func(string) ([]byte, error)
	// SkipTrust loads a discovered file even when it is not trusted (see
	// [Trust]); `switchboard config trust` uses it to show the file before
	// recording it. Trust is checked only on the real disk: when ReadFile
	// is nil.
	SkipTrust bool
	// Override, if not nil, changes the config after the file and the
	// environment and before Validate: this is where the cli applies flags.
	// (Changing fields after Load and calling Validate again works too.)
	Override func(*Config)
}

// Load builds the configuration: defaults, then the file (see [Find]), with
// ${VAR} expanded in its string values, then the environment, then
// LoadOptions.Override (flags), then [Config.Validate]. Relative paths in the file (data, builtin.roots,
// mcpServers.*.cwd, openapiServers.*.spec files) are resolved against the
// file's directory, and ~/ against $HOME.
//
// On a read or parse error, Load returns nil and the error. On unknown
// keys and wrong types, it returns nil and every such problem together
// with what Validate finds in the rest. When only Validate fails it returns the config
// too, so `switchboard config check` can show it next to the problems.
func Load(opts LoadOptions) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	read := opts.ReadFile
	if read == nil {
		read = readRegular
	}
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("loading config: finding the working directory: %w", err)
		}
		cwd = wd
	}
	if !filepath.IsAbs(cwd) {
		abs, err := filepath.Abs(cwd)
		if err != nil {
			return nil, fmt.Errorf("loading config: resolving the working directory: %w", err)
		}
		cwd = abs
	}
	path, data, err := locate(opts.Path, cwd, getenv, read)
	if err != nil {
		return nil, err
	}
	dirs := trustDirs(cwd, getenv)
	if path != "" && opts.Path == "" && opts.ReadFile == nil && !opts.SkipTrust {
		if err := checkTrust(dirs, path, data); err != nil {
			return nil, err
		}
	}
	c := Default()
	c.Candidates, c.TrustDirs = candidates(cwd, getenv), dirs
	base := cwd
	var decodeErr error
	if path != "" {
		c.Source = path
		base = filepath.Dir(path)
		parsed, err := c.decodeFile(path, data, getenv)
		if !parsed {
			return nil, fmt.Errorf("loading config %s:\n%w", path, err)
		}
		decodeErr = err
	}
	home := getenv("HOME")
	c.resolvePaths(base, cwd, home)
	c.applyEnv(getenv, cwd, home)
	if opts.Override != nil {
		opts.Override(c)
	}
	if decodeErr != nil {
		// Every problem at once: a person fixing an unknown key should
		// not find the next problem only after saving again.
		return nil, fmt.Errorf("loading config %s:\n%w", path, alsoInvalid(decodeErr, c))
	}
	if err := c.Validate(); err != nil {
		src := path
		if src == "" {
			src = "(no file; defaults and environment)"
		}
		return c, fmt.Errorf("invalid config %s:\n%w", src, err)
	}
	return c, nil
}

// decodeFile merges the file's content into c. parsed is false when the
// file could not be parsed at all; otherwise err lists the keys and values
// that did not decode (the rest did).
func (c *Config) decodeFile(name string, data []byte, getenv func(string) string) (parsed bool, err error) {
	n, err := parse(data, formatOf(name, data))
	if err != nil {
		return false, err
	}
	if n == nil {
		return true, nil
	}
	d := &decoder{getenv: getenv, secretPaths: map[string]bool{}}
	d.decode("", n, reflect.ValueOf(c).Elem())
	c.unset = d.unset
	c.secretPaths = d.secretPaths
	return true, errors.Join(d.errs...)
}

// resolvePaths makes the file's relative paths absolute against base, the
// config file's directory.
func (c *Config) resolvePaths(base, cwd, home string) {
	abs := func(p string) string {
		switch {
		case p == "":
			return ""
		case p == "~" && home != "":
			return home
		case strings.HasPrefix(p, "~/") && home != "":
			return filepath.Join(home, p[2:])
		case filepath.IsAbs(p):
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	c.Data = abs(c.Data)
	c.Uploads.Dir = abs(c.Uploads.Dir)
	for i, r := range c.Builtin.Roots {
		if r != "" {
			c.Builtin.Roots[i] = abs(r)
		}
	}
	if c.Builtin.Roots == nil {
		c.Builtin.Roots = []string{cwd}
	}
	rootPaths := func(roots []string) {
		for i, r := range roots {
			if r != "" && !strings.Contains(r, "://") {
				roots[i] = abs(r)
			}
		}
	}
	absAll := func(ps []string) {
		for i, p := range ps {
			ps[i] = abs(p)
		}
	}
	absSandbox := func(sb *Sandbox) {
		absAll(sb.Read)
		absAll(sb.Write)
	}
	rootPaths(c.MCPRoots)
	absSandbox(&c.Sandbox)
	for name, s := range c.MCPServers {
		s.Cwd = abs(s.Cwd)
		rootPaths(s.Roots)
		if s.Sandbox != nil {
			absSandbox(s.Sandbox)
		}
		c.MCPServers[name] = s
	}
	for name, s := range c.OpenAPIServers {
		if s.Spec != "" && !strings.Contains(s.Spec, "://") {
			s.Spec = abs(s.Spec)
			c.OpenAPIServers[name] = s
		}
	}
}
