package config

import (
	"bytes"
	"os"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as YAML, JSON and a sniffed file:
// it must never panic or hang, and whatever it accepts must validate again
// and print.
func FuzzLoad(f *testing.F) {
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	seeds := []string{
		string(example),
		claudeDesktopConfig,
		"",
		"{}",
		"mcpServers: {a: {command: x, args: [\"${A:-${B}}\", \"$$\"]}}",
		"mcpServers:\n  a: &x {command: x}\n  b: {<<: *x, timeout: 1.5}\n",
		"a: &a [*a, *a]\nmcpServers: *a\n",
		"models: {m: {provider: openai, model: x, temperature: 1e400, maxTokens: 0x7fffffffffffffff}}",
		`{"limits": {"callTimeout": -9223372036854775808}, "data": "\ud83d\ude00\/"}`,
		"results: {maxBytes: 99999999999999999999}\n---\nx: 1\n",
		"- [\n",
		"builtin: {roots: [~, '~/x'], disabled: [terminal, terminal]}\nlog: {level: ${L:-debug}}\n",
		"\xef\xbb\xbf{\"data\": \"x\"}",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		name := [...]string{"switchboard.yaml", "switchboard.json", "switchboard.conf"}[kind%3]
		env := envMap{"A": "1", "HOME": "/home/u", "OPENAI_API_KEY": "sk-fuzz"}
		c, err := Load(LoadOptions{
			Path:     "/cfg/" + name,
			Cwd:      "/work",
			Getenv:   env.get,
			ReadFile: fakeFS{"/cfg/" + name: string(data)}.read,
		})
		if c == nil {
			if err == nil {
				t.Fatal("Load returned neither a config nor an error")
			}
			return
		}
		if (err == nil) != (c.Validate() == nil) {
			t.Fatalf("Validate disagrees with Load: %v", err)
		}
		for _, f := range []Format{FormatYAML, FormatJSON} {
			var out bytes.Buffer
			if err := c.WriteEffective(&out, f); err != nil {
				t.Fatalf("WriteEffective(%s): %v", f, err)
			}
			if bytes.Contains(out.Bytes(), []byte("sk-fuzz")) {
				t.Fatalf("WriteEffective(%s) printed the API key", f)
			}
		}
	})
}
