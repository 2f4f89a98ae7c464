package builtin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrubEnv(t *testing.T) {
	in := []string{
		"PATH=/bin", "HOME=/root", "TERM=xterm", "GOPATH=/go",
		"OPENAI_API_KEY=a", "ANTHROPIC_API_KEY=b", "GITHUB_TOKEN=c", "Gh_Token=c2", "NPM_TOKEN=d",
		"AWS_ACCESS_KEY_ID=e", "AWS_PROFILE=f", "AZURE_CLIENT_ID=g", "GOOGLE_APPLICATION_CREDENTIALS=h",
		"PGPASSWORD=i", "MYSQL_PWD_PASSWD=j", "SSH_AUTH_SOCK=k", "COOKIE_JAR=l", "HTTP_SESSION=m",
		"APP_SECRET=n", "GPG_PASSPHRASE=o", "DATABASE_URL=p", "VAULT_ADDR=q", "PRIVATE_THING=r",
		"REDIS=redis://:pw@host:6379", "MIRROR=https://u:p@mirror/x", "DOCS=https://example.org/x@y",
		"NOEQUALS", "=orphan",
	}
	want := []string{"PATH=/bin", "HOME=/root", "TERM=xterm", "GOPATH=/go", "DOCS=https://example.org/x@y"}
	if diff := cmp.Diff(want, scrubEnv(in)); diff != "" {
		t.Errorf("scrubEnv mismatch (-want +got):\n%s", diff)
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"abc", "de"}, "abcde"},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd"},
		{"cut in the middle", 4, []string{"abcdefgh"}, "ab\n[... 4 bytes of output omitted ...]\ngh"},
		{"many small writes", 6, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "123\n[... 3 bytes of output omitted ...]\n789"},
		{"runes are not split", 8, []string{"ééééé", "xx"}, "éé\n[... 4 bytes of output omitted ...]\néxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(tt.limit)
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if diff := cmp.Diff(tt.want, h.String()); diff != "" {
				t.Errorf("headTail mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
