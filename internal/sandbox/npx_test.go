package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInstalledNPX(t *testing.T) {
	r := t.TempDir()
	at := func(p string) string { return filepath.Join(r, p) }
	tree(t, r, map[string]string{
		"home/.npm/_npx/aaa/package.json":                         `{"dependencies":{"@scope/srv":"^1.2.0"},"_npx":{"packages":["@scope/srv"]}}`,
		"home/.npm/_npx/aaa/node_modules/@scope/srv/package.json": `{"name":"@scope/srv","version":"1.2.3","bin":{"srv":"dist/index.js","other":"dist/other.js"}}`,
		"home/.npm/_npx/bbb/package.json":                         `{"_npx":{"packages":["plain@2.0.0"]}}`,
		"home/.npm/_npx/bbb/node_modules/plain/package.json":      `{"name":"plain","version":"2.0.0","bin":"cli.js"}`,
		"cache/_npx/ccc/package.json":                             `{"_npx":{"packages":["plain"]}}`,
		"cache/_npx/ccc/node_modules/plain/package.json":          `{"name":"plain","version":"3.0.0","bin":{"whatever":"main.js"}}`,
		"evil/_npx/ddd/package.json":                              `{"_npx":{"packages":["plain"]}}`,
		"evil/_npx/ddd/node_modules/plain/package.json":           `{"name":"plain","version":"3.0.0","bin":"../../../../secret"}`,
		"secret": "x",
	})
	env := []string{"HOME=" + at("home")}
	tests := []struct {
		name     string
		cmd      string
		args     []string
		env      []string
		wantBin  string
		wantRest []string
		writable []string
	}{
		{"scoped, its own bin of several", "npx", []string{"-y", "@scope/srv", "/data"}, env, at("home/.npm/_npx/aaa/node_modules/@scope/srv/dist/index.js"), []string{"/data"}, nil},
		{"the installed version asked for", "/usr/bin/npx", []string{"--yes", "@scope/srv@1.2.3"}, env, at("home/.npm/_npx/aaa/node_modules/@scope/srv/dist/index.js"), []string{}, nil},
		{"another version asked for", "npx", []string{"-y", "@scope/srv@2.0.0"}, env, "", nil, nil},
		{"a spec installed as such", "npx", []string{"plain@2.0.0", "--flag"}, env, at("home/.npm/_npx/bbb/node_modules/plain/cli.js"), []string{"--flag"}, nil},
		{"after --", "npx", []string{"-y", "--", "@scope/srv", "-x"}, env, at("home/.npm/_npx/aaa/node_modules/@scope/srv/dist/index.js"), []string{"-x"}, nil},
		{"npm_config_cache, one bin of another name", "npx", []string{"plain"}, []string{"npm_config_cache=" + at("cache")}, at("cache/_npx/ccc/node_modules/plain/main.js"), []string{}, nil},
		{"a cache in a write path is not believed", "npx", []string{"plain"}, []string{"npm_config_cache=" + at("cache")}, "", nil, []string{at("cache")}},
		{"a bin outside its package", "npx", []string{"plain"}, []string{"npm_config_cache=" + at("evil")}, "", nil, nil},
		{"not installed", "npx", []string{"-y", "absent"}, env, "", nil, nil},
		{"--package is not followed", "npx", []string{"--package", "plain", "cli"}, env, "", nil, nil},
		{"not npx", "node", []string{"plain"}, env, "", nil, nil},
		{"no HOME and no cache", "npx", []string{"plain"}, nil, "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, rest, ok := InstalledNPX(tt.cmd, tt.args, tt.env, tt.writable)
			if ok != (tt.wantBin != "") || bin != tt.wantBin {
				t.Fatalf("InstalledNPX = %q, %v; want %q", bin, ok, tt.wantBin)
			}
			if ok && !strings.HasPrefix(bin, r) {
				t.Errorf("bin %s outside the cache", bin)
			}
			if diff := cmp.Diff(tt.wantRest, rest); ok && diff != "" {
				t.Errorf("rest mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
