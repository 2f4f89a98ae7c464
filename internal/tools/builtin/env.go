package builtin

import "strings"

// secretWords mark environment variable names that likely hold secrets;
// matched case-insensitively anywhere in the name. Some innocent names are
// caught too (XAUTHORITY, KEYBOARD_*); a command that needs them can set them.
var secretWords = []string{
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"AUTH", "COOKIE", "SESSION", "PRIVATE",
}

// secretPrefixes mark whole families of provider credentials.
var secretPrefixes = []string{"AWS_", "AZURE_", "GOOGLE_APPLICATION_", "GCP_", "ARM_CLIENT_", "VAULT_"}

// secretNames are known secret-bearing variables not caught by the words above.
var secretNames = []string{"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "SENTRY_DSN", "NETRC"}

// scrubEnv returns env without the variables that look like secrets: by name
// (see secretWords, secretPrefixes, secretNames) or by a value that is a URL
// with a password in it (scheme://user:pass@host). Malformed entries without
// "=" are dropped too.
func scrubEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || secretName(name) || urlWithPassword(value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, n := range secretNames {
		if up == n {
			return true
		}
	}
	return false
}

// urlWithPassword reports whether v contains scheme://user:password@host.
func urlWithPassword(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		end := strings.IndexAny(v, "/?# ")
		if end < 0 {
			end = len(v)
		}
		if at := strings.LastIndexByte(v[:end], '@'); at > 0 && strings.Contains(v[:at], ":") {
			return true
		}
	}
}
