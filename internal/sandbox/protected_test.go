package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The data directory and the config below parent folders inside the
// write paths (proj/state/data, proj/etc/sb.yaml): a confined command
// cannot rename those parents, and the next command still finds them
// hidden where Protected says they are now, even after the person moved
// them.
func TestHiddenParentsCannotBeRenamed(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "state", "data")
	cfg := filepath.Join(root, "etc", "sb.yaml")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "switchboard.db"), []byte("key-hashes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("apiKey: k"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := confined(t, root)
	// Where the objects are now, as internal/protect would say.
	now := []string{data, cfg}
	p.Protected = func() []string { return now }

	for _, line := range []string{"mv state moved", "mv etc etc2", "mv state/data state/d2", "rm -rf state", "mv etc/sb.yaml etc/x"} {
		out, code := sh(t, p, root, line)
		if code == 0 {
			t.Errorf("%q succeeded in the sandbox:\n%s", line, out)
		}
	}
	for _, p := range []string{data, cfg} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s moved: %v", p, err)
		}
	}
	// Other work in the same folders goes on.
	if out, code := sh(t, p, root, "echo x > state/notes && mv state/notes state/n2 && mkdir -p etc/sub && cat state/n2"); code != 0 {
		t.Errorf("ordinary work next to the hidden paths failed (%d):\n%s", code, out)
	}

	// The person moves the folders; Protected follows them.
	if err := os.Rename(filepath.Join(root, "state"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "etc"), filepath.Join(root, "etc2")); err != nil {
		t.Fatal(err)
	}
	now = []string{filepath.Join(root, "moved", "data"), filepath.Join(root, "etc2", "sb.yaml")}
	out, _ := sh(t, p, root, "cat moved/data/switchboard.db etc2/sb.yaml; echo entries: $(ls -A moved/data | wc -l)")
	if strings.Contains(out, "key-hashes") || strings.Contains(out, "apiKey") || !strings.Contains(out, "entries: 0") {
		t.Errorf("the moved data directory or config is visible:\n%s", out)
	}
}
