package security

import (
	"net/http"
	"strings"
	"testing"
)

// signedSecrets are planted where a configuration may hold them without a
// name that says "secret": the signature of a signed URL (Azure SAS sig,
// S3 X-Amz-Signature), a DSN password in a URL given as an ordinary
// environment variable, and a password in a key=value connection string
// given as an argument.
var signedSecrets = []string{"SAS-SIG-51", "AMZ-SIG-52", "DB-URL-PW-53", "DSN-PW-54"}

// TestCredSignedURLsAndDSNPasswordsNeverShown: `config check`, `servers`
// (with stderr), the logs, and the admin API never show those values,
// even when the remote server fails and its error quotes its URL, and the
// stdio server prints its connection string and DATABASE_URL to stderr
// as a crashing server's usage message does. What locates them (hosts,
// users, the rest of the line) stays.
func TestCredSignedURLsAndDSNPasswordsNeverShown(t *testing.T) {
	dir := project(t, `mcpServers:
  blob:
    type: http
    url: "http://127.0.0.1:1/mcp?sv=2022-11-02&sp=r&sig=SAS-SIG-51&X-Amz-Signature=AMZ-SIG-52"
  db:
    command: /bin/sh
    args: ["-c", "echo \"usage: pg-mcp $1 url=$DATABASE_URL\" >&2; exit 1", "pg-mcp", "host=db user=sb password=DSN-PW-54 dbname=sb"]
    env: {DATABASE_URL: "postgres://sb:DB-URL-PW-53@db:5432/sb"}
    sandbox: false
`)
	check := func(what, out string) {
		t.Helper()
		for _, s := range signedSecrets {
			if strings.Contains(out, s) {
				t.Errorf("%s shows the secret %s:\n%s", what, s, out)
			}
		}
	}
	r := switchboard(t, dir, "config", "check")
	check("config check", r.stdout+r.stderr)
	for _, want := range []string{"sig=REDACTED", "X-Amz-Signature=REDACTED", "postgres://sb:REDACTED@db:5432/sb", "password=REDACTED dbname=sb"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config check lacks %q (the secret hidden, the rest kept):\n%s", want, r.stdout)
		}
	}
	for _, args := range [][]string{{"servers"}, {"servers", "--json", "--stderr"}, {"--log-level", "debug", "tools"}} {
		r := switchboard(t, dir, args...)
		check(strings.Join(args, " "), r.stdout+r.stderr)
	}
	if r := switchboard(t, dir, "servers", "--json", "--stderr"); !strings.Contains(r.stdout, "usage: pg-mcp host=db user=sb password=REDACTED") {
		t.Errorf("servers --stderr lost the server's own output rather than only its secrets:\n%s", r.stdout)
	}

	s := serve(t, dir)
	eventually(t, "both servers failing", func() bool {
		_, body := s.call(t, http.MethodGet, "/api/v1/servers", "", nil)
		return strings.Count(body, `"error"`) >= 2
	})
	for _, path := range []string{"/api/v1/servers", "/api/v1/servers/db/stderr", "/api/v1/servers/blob/stderr"} {
		_, body := s.call(t, http.MethodGet, path, "", nil)
		check("GET "+path, body)
	}
	check("serve's log", s.stderr.String())
}
