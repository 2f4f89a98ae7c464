package security

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// credSecrets are planted in every place a server's configuration holds a
// secret: URL user info and query, header values, and the values of
// command-line flags that name a token, key, secret or password.
var credSecrets = []string{"pw-URL-1", "sk-QUERY-2", "sk-HDR-3", "sk-HDR-4", "sk-ARG-5", "sk-ARG-6", "sk-ARG-7"}

// TestCredSecretsNeverShown: the secrets of server configurations appear
// in none of `servers`, `servers --json --stderr`, doctor, `config check`,
// /api/v1/servers, or the logs, even when the servers fail and their errors
// and stderr quote what they were started with.
func TestCredSecretsNeverShown(t *testing.T) {
	node, _ := pinNode(t)
	dir := t.TempDir()
	// The stdio server prints its command line to stderr and exits, as
	// a crashing server's usage message does.
	cfg := fmt.Sprintf(`mcpServers:
  remote:
    url: "http://user:pw-URL-1@127.0.0.1:1/mcp?api_key=sk-QUERY-2"
    headers: {Authorization: "Bearer sk-HDR-3", X-Api-Key: sk-HDR-4}
  local:
    command: %q
    args: ["-e", "console.error('usage: ' + process.argv.slice(1).join(' ')); process.exit(1)", "--", "--api-key", "sk-ARG-5", "--token=sk-ARG-6", "--client-secret", "sk-ARG-7"]
    sandbox: false
`, node)
	writeFile(t, filepath.Join(dir, "switchboard.yaml"), cfg)

	check := func(what, out string) {
		t.Helper()
		for _, s := range credSecrets {
			if strings.Contains(out, s) {
				t.Errorf("%s shows the secret %s:\n%s", what, s, out)
			}
		}
	}
	for _, args := range [][]string{
		{"servers"}, {"servers", "--json", "--stderr"}, {"doctor"}, {"config", "check"}, {"--log-level", "debug", "tools"},
	} {
		r := pinRun(t, dir, args...)
		out := r.stdout + r.stderr
		check(strings.Join(args, " "), out)
		if !strings.Contains(out, "remote") && !strings.Contains(out, "127.0.0.1:1") {
			t.Errorf("%s does not mention the remote server at all:\n%s", strings.Join(args, " "), out)
		}
	}
	r := pinRun(t, dir, "servers", "--json", "--stderr")
	if !strings.Contains(r.stdout, "usage:") || !strings.Contains(r.stdout, "--api-key") {
		t.Errorf("servers --stderr lost the server's own output rather than only its secrets:\n%s", r.stdout)
	}

	base := serve(t, dir).base
	for _, path := range []string{"/api/v1/servers", "/api/v1/servers/local/stderr", "/api/v1/servers/remote/stderr"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		check("GET "+path, string(body))
	}
}
