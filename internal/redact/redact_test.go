package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pw@example.com/mcp", "https://user:REDACTED@example.com/mcp"},
		{"https://ghp_abc123@github.com/x", "https://REDACTED@github.com/x"},
		{"https://api.example.com/v1?api_key=sk-1&limit=3", "https://api.example.com/v1?api_key=REDACTED&limit=3"},
		{"https://api.example.com/v1?token=sk-1", "https://api.example.com/v1?token=REDACTED"},
		{"postgres://sb:hunter2@db:5432/sb?sslmode=disable", "postgres://sb:REDACTED@db:5432/sb?sslmode=disable"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{
		"-y", "@acme/server", "--api-key", "sk-live-1", "--token=tok-2", "-password", "pw3", "--port", "8080",
		"--db", "postgres://u:pw4@h/db", "--client-secret=s5", "--verbose",
	}
	want := []string{
		"-y", "@acme/server", "--api-key", "REDACTED", "--token=REDACTED", "-password", "REDACTED", "--port", "8080",
		"--db", "postgres://u:REDACTED@h/db", "--client-secret=REDACTED", "--verbose",
	}
	if diff := cmp.Diff(want, Args(in)); diff != "" {
		t.Errorf("Args mismatch (-want +got):\n%s", diff)
	}
	if in[3] != "sk-live-1" {
		t.Error("Args changed its input")
	}
}

func TestText(t *testing.T) {
	in := `connecting to "https://me:pw9@mcp.example.com/mcp": dial tcp: refused; see https://docs.example.com/x.`
	got := Text(in)
	if strings.Contains(got, "pw9") || !strings.Contains(got, "https://me:REDACTED@mcp.example.com/mcp") || !strings.HasSuffix(got, "https://docs.example.com/x.") {
		t.Errorf("Text = %q", got)
	}
}

func TestHeader(t *testing.T) {
	for name, want := range map[string]string{"Authorization": Mask, "X-Api-Key": Mask, "Cookie": Mask, "Accept": "v", "X-Trace": "v"} {
		if got := Header(name, "v"); got != want {
			t.Errorf("Header(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add("https://a:b@c/d?token=x")
	f.Fuzz(func(t *testing.T, s string) {
		_ = Text(s)
		_ = URL(s)
	})
}

// TestSignedURLsAndConnectionStrings: the signature of a signed URL (S3,
// GCS, Azure SAS, generic sig/signature/token parameters) and the password
// of a connection string (URL form, libpq and ODBC keyword form, quoted or
// not) are hidden, wherever a text quotes them; what says where the thing
// is (host, path, user, expiry) stays.
func TestSignedURLsAndConnectionStrings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{
			"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-12-01&sp=r&sig=AbC%2Bd3f%3D",
			"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-12-01&sp=r&sig=REDACTED",
		},
		{
			"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261126&X-Amz-Signature=9f86d081&X-Amz-Expires=900",
			"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Expires=900",
		},
		{"https://storage.googleapis.com/b/o?X-Goog-Signature=abcdef&x=1", "https://storage.googleapis.com/b/o?X-Goog-Signature=REDACTED&x=1"},
		{"https://cdn.example.com/f?expires=1&signature=zzz", "https://cdn.example.com/f?expires=1&signature=REDACTED"},
		{"https://cdn.example.com/f?SIG=zzz&token=t0k", "https://cdn.example.com/f?SIG=REDACTED&token=REDACTED"},
		{"fetching https://x.example/a?sig=s3cr3t: 403", "fetching https://x.example/a?sig=REDACTED: 403"},
		{"postgres://sb:hunter2@db:5432/sb", "postgres://sb:REDACTED@db:5432/sb"},
		{
			"host=db port=5432 user=sb password=hunter2 dbname=sb sslmode=disable",
			"host=db port=5432 user=sb password=REDACTED dbname=sb sslmode=disable",
		},
		{"host=db password = 'a b\\' c' dbname=sb", "host=db password = REDACTED dbname=sb"},
		{`Server=db;Database=sb;Uid=sb;Pwd=hunter2;`, `Server=db;Database=sb;Uid=sb;Pwd=REDACTED;`},
		{`dsn: "user=sb PASSWORD=hunter2"`, `dsn: "user=sb PASSWORD=REDACTED"`},
		{"--db=host=db password=pw9", "--db=host=db password=REDACTED"},
		{"nothing=secret here, max=3", "nothing=secret here, max=3"},
		{"a design=signal", "a design=signal"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
		if got := Text(Text(tc.in)); got != tc.want {
			t.Errorf("Text twice (%q) = %q; want it unchanged by the second pass", tc.in, got)
		}
	}
	if got := URL("https://a.example/f?sig=abc&sp=r"); got != "https://a.example/f?sig=REDACTED&sp=r" {
		t.Errorf("URL with sig = %q", got)
	}
	if diff := cmp.Diff([]string{"hunter2", "a b\\' c"}, PairValues("host=db password=hunter2 pwd='a b\\' c'")); diff != "" {
		t.Errorf("PairValues mismatch (-want +got):\n%s", diff)
	}
	got := NewSecrets(MapValues(map[string]string{"DATABASE_URL": "postgres://u:pw-in-url@db/x", "PGCONN": "host=db password=pw-in-pairs", "HOME": "/root"})...)
	if out := got.Text("leaked pw-in-url and pw-in-pairs from /root"); out != "leaked REDACTED and REDACTED from /root" {
		t.Errorf("secrets from env values: %q", out)
	}
}

// TestSecretsAdd: values added while in use are hidden from then on, old
// ones stay hidden, and a secret containing another goes whole.
func TestSecretsAdd(t *testing.T) {
	s := NewSecrets("first-secret")
	if got := s.Text("t second-secret-long"); got != "t second-secret-long" {
		t.Fatalf("an unknown value was hidden: %q", got)
	}
	s.Add("second-secret", "second-secret-long", "ab")
	for in, want := range map[string]string{
		"a first-secret":           "a " + Mask,
		"t second-secret-long":     "t " + Mask,
		"t second-secret here":     "t " + Mask + " here",
		"ab is too short to count": "ab is too short to count",
	} {
		if got := s.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	var nilSecrets *Secrets
	if got := nilSecrets.Text("plain"); got != "plain" {
		t.Errorf("nil Secrets: %q", got)
	}
}
