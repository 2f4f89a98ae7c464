// Package redact hides secrets in what Switchboard shows: server URLs,
// command lines, headers, and the error texts that quote them. It is the
// one definition of "looks secret" and of how a secret is hidden, used by
// config check, `switchboard servers` and doctor, the servers API, logs and
// errors alike, so that no surface hides less than another.
//
// Layer: leaf (stdlib only); every package may import it.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask is what a hidden secret prints as.
const Mask = "REDACTED"

// secretWords are the parts of a name (flag, header, variable, query
// parameter) that make its value a secret.
var secretWords = [...]string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "AUTH", "COOKIE", "CREDENTIAL", "BEARER", "SESSION", "SIGNATURE"}

// secretNames are whole names that make a value a secret, too short to
// look for inside other names: the signature of a signed URL (Azure SAS
// `sig`), ODBC's `PWD`, a bare `jwt`.
var secretNames = [...]string{"SIG", "PWD", "JWT"}

// SecretName reports whether a value under this name (an environment
// variable, header, flag, query parameter or connection-string keyword) is
// to be hidden: the name contains KEY, TOKEN, SECRET, PASSWORD, AUTH,
// COOKIE, CREDENTIAL, SIGNATURE... in any case (X-Amz-Signature,
// X-Goog-Credential, access_token), or is one of sig, pwd, jwt.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretNames {
		if up == w {
			return true
		}
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// URL returns raw with its user info (user and password: either may be a
// token, as in https://ghp_x@github.com) and the values of query parameters
// with secret names (?api_key=...) hidden. A raw that does not parse as a
// URL is returned with [Text] applied.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && u.RawQuery == "") {
		if err != nil {
			return Text(raw)
		}
		return raw
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Mask)
		} else {
			u.User = url.User(Mask)
		}
	}
	if u.RawQuery != "" {
		q := strings.Split(u.RawQuery, "&")
		for i, kv := range q {
			k, _, ok := strings.Cut(kv, "=")
			if name, err := url.QueryUnescape(k); ok && err == nil && SecretName(name) {
				q[i] = k + "=" + Mask
			}
		}
		u.RawQuery = strings.Join(q, "&")
	}
	return u.String()
}

// Args returns a copy of a command line with the values of flags that name
// a secret hidden: "--api-key X", "--token=X", "-password X". URLs among
// the arguments get [URL]. Other arguments are kept, so the line still says
// what runs.
func Args(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext:
			out[i], hideNext = Mask, false
			continue
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if SecretName(name) {
				if hasValue {
					out[i] = a[:strings.Index(a, "=")+1] + Mask
				} else {
					// The value is the next argument, unless that is
					// another flag (--no-auth --verbose).
					out[i] = a
					hideNext = i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")
				}
				continue
			}
		}
		out[i] = Text(a)
	}
	return out
}

// Header returns value, or [Mask] when the header's name is secret (or it
// is Authorization, Cookie, Proxy-Authorization) and value is not empty.
func Header(name, value string) string {
	if value != "" && SecretName(name) {
		return Mask
	}
	return value
}

// urlInText finds URLs with user info or a query inside free text.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// pairInText finds name=value pairs inside free text: the keywords of a
// libpq or ODBC connection string (`host=db password=hunter2`,
// `Pwd=x;`), a query string quoted without its URL, an option written
// out. A value is a quoted string (with backslash escapes, as libpq
// writes `password='a b'`) or runs to a space, quote or separator.
var pairInText = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s;&,'"<>]+)`)

// Text returns s with every URL in it passed through [URL] (error texts and
// log lines quote the URLs they failed on) and the value of every
// name=value pair whose name is secret ([SecretName]) hidden, as in a
// connection string such as `host=db user=sb password=hunter2`.
func Text(s string) string {
	if strings.Contains(s, "://") {
		s = urlsInText(s)
	}
	if strings.IndexByte(s, '=') < 0 {
		return s
	}
	return pairInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := pairInText.FindStringSubmatch(m)
		if !SecretName(sub[1]) {
			return m
		}
		v, trail := splitTrail(sub[2])
		if v == Mask || v == "" {
			return m
		}
		return m[:len(m)-len(sub[2])] + Mask + trail
	})
}

// PairValues returns the values [Text] hides in s as name=value pairs,
// unquoted, so that a secret given inside a connection string is hidden
// also where it is quoted alone.
func PairValues(s string) []string {
	var out []string
	for _, sub := range pairInText.FindAllStringSubmatch(s, -1) {
		if SecretName(sub[1]) {
			v, _ := splitTrail(sub[2])
			if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
				v = v[1 : len(v)-1]
			}
			if v != "" && v != Mask {
				out = append(out, v)
			}
		}
	}
	return out
}

// splitTrail splits the punctuation that ends a sentence (and is not part
// of an unquoted value) off v.
func splitTrail(v string) (string, string) {
	if v != "" && (v[0] == '\'' || v[0] == '"') {
		return v, ""
	}
	i := len(v)
	for i > 0 && strings.ContainsRune(".:)]}", rune(v[i-1])) {
		i--
	}
	return v[:i], v[i:]
}

// urlsInText passes every URL in s through [URL].
func urlsInText(s string) string {
	return urlInText.ReplaceAllStringFunc(s, func(m string) string {
		// A URL quoted as %q ends before the closing quote; trailing
		// punctuation is not part of it.
		trail := ""
		for len(m) > 0 && strings.ContainsRune(".,;:)]}", rune(m[len(m)-1])) {
			trail = m[len(m)-1:] + trail
			m = m[:len(m)-1]
		}
		u, err := url.Parse(m)
		if err != nil {
			return m + trail
		}
		if u.User == nil && u.RawQuery == "" {
			return m + trail
		}
		return URL(m) + trail
	})
}
