package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name     string
		files    []string // relative to a temp root holding cwd/, home/ and xdg/
		explicit string
		env      envMap // values are relative to the temp root
		want     string // relative to the temp root; "" means no file
		wantErr  string
	}{
		{name: "no file at all", env: envMap{"HOME": "home"}},
		{
			name:  "yaml first in cwd",
			files: []string{"cwd/switchboard.yaml", "cwd/switchboard.yml", "cwd/switchboard.json", "home/.config/switchboard/config.yaml"},
			env:   envMap{"HOME": "home"},
			want:  "cwd/switchboard.yaml",
		},
		{
			name:  "yml before json",
			files: []string{"cwd/switchboard.yml", "cwd/switchboard.json"},
			want:  "cwd/switchboard.yml",
		},
		{
			name:  "json in cwd before the user's config",
			files: []string{"cwd/switchboard.json", "home/.config/switchboard/config.yaml"},
			env:   envMap{"HOME": "home"},
			want:  "cwd/switchboard.json",
		},
		{
			name:  "XDG_CONFIG_HOME",
			files: []string{"xdg/switchboard/config.json", "home/.config/switchboard/config.yaml"},
			env:   envMap{"HOME": "home", "XDG_CONFIG_HOME": "xdg"},
			want:  "xdg/switchboard/config.json",
		},
		{
			name:  "XDG order yaml, yml, json",
			files: []string{"xdg/switchboard/config.yml", "xdg/switchboard/config.json"},
			env:   envMap{"XDG_CONFIG_HOME": "xdg"},
			want:  "xdg/switchboard/config.yml",
		},
		{
			name:  "HOME/.config without XDG_CONFIG_HOME",
			files: []string{"home/.config/switchboard/config.yaml"},
			env:   envMap{"HOME": "home"},
			want:  "home/.config/switchboard/config.yaml",
		},
		{
			name:  "relative XDG_CONFIG_HOME is ignored",
			files: []string{"cwd/xdg/switchboard/config.yaml", "home/.config/switchboard/config.yaml"},
			env:   envMap{"HOME": "home", "XDG_CONFIG_HOME": "=xdg"},
			want:  "home/.config/switchboard/config.yaml",
		},
		{
			name:     "explicit wins",
			files:    []string{"cwd/switchboard.yaml", "cwd/other.conf"},
			explicit: "other.conf",
			want:     "cwd/other.conf",
		},
		{
			name:     "explicit absolute",
			files:    []string{"home/my.yaml"},
			explicit: "=home/my.yaml",
			want:     "home/my.yaml",
		},
		{
			name:     "explicit missing is an error",
			files:    []string{"cwd/switchboard.yaml"},
			explicit: "missing.yaml",
			wantErr:  "cwd/missing.yaml does not exist; check the --config path",
		},
		{
			name:     "explicit directory is an error",
			files:    []string{"cwd/dir/x"},
			explicit: "dir",
			wantErr:  "is a directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range append(tt.files, "cwd/.keep") {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(`{"data": "x"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// Values are made absolute under root; "=x" stays relative.
			env := envMap{}
			for k, v := range tt.env {
				if rel, ok := strings.CutPrefix(v, "="); ok {
					env[k] = rel
				} else {
					env[k] = filepath.Join(root, v)
				}
			}
			explicit := tt.explicit
			if rel, ok := strings.CutPrefix(explicit, "="); ok {
				explicit = filepath.Join(root, rel)
			}
			got, err := Find(explicit, filepath.Join(root, "cwd"), env.get)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, tt.want)
			}
			if got != want {
				t.Errorf("Find = %q, want %q", got, want)
			}

			// Load finds the same file through its ReadFile.
			c, err := Load(LoadOptions{Path: explicit, Cwd: filepath.Join(root, "cwd"), Getenv: env.get})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Source != want {
				t.Errorf("Load Source = %q, want %q", c.Source, want)
			}
		})
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	// A candidate that exists but cannot be read is an error, not skipped.
	_, err := Load(LoadOptions{
		Cwd:    "/work",
		Getenv: envMap{}.get,
		ReadFile: func(p string) ([]byte, error) {
			return nil, os.ErrPermission
		},
	})
	if err == nil || !strings.Contains(err.Error(), "reading config file: permission denied") {
		t.Fatalf("Load error = %v, want a read error", err)
	}
}
