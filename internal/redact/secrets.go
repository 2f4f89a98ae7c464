package redact

import (
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// minSecret is the shortest value [Secrets] hides: shorter ones ("1",
// "on") would blank out ordinary words.
const minSecret = 4

// Secrets hides known secret values (those a configuration holds) wherever
// they appear, on top of what [Text] hides: a server that prints its own
// command line, or an error that quotes a header, shows them as [Mask]. A
// nil *Secrets hides only what Text does. It is safe for concurrent use.
type Secrets struct {
	// values is longest first, so a secret containing another goes
	// whole; replaced whole by Add, so Text reads it without a lock.
	values atomic.Pointer[[]string]
	addMu  sync.Mutex // serialises Add
}

// NewSecrets returns a Secrets hiding values; empty and short ones are
// ignored.
func NewSecrets(values ...string) *Secrets {
	s := &Secrets{}
	s.Add(values...)
	return s
}

// Add hides values too, from now on: a configuration applied while
// serving brings secrets of its own. Values are never forgotten, so an
// old secret quoted by a late log line stays hidden.
func (s *Secrets) Add(values ...string) {
	s.addMu.Lock()
	defer s.addMu.Unlock()
	var cur []string
	if p := s.values.Load(); p != nil {
		cur = *p
	}
	next := slices.Clone(cur)
	for _, v := range values {
		if len(v) >= minSecret && !slices.Contains(next, v) {
			next = append(next, v)
		}
	}
	if len(next) == len(cur) {
		return
	}
	slices.SortFunc(next, func(a, b string) int { return len(b) - len(a) })
	s.values.Store(&next)
}

// Text returns [Text](text) with every known secret replaced by [Mask].
func (s *Secrets) Text(text string) string {
	text = Text(text)
	if s == nil {
		return text
	}
	p := s.values.Load()
	if p == nil {
		return text
	}
	for _, v := range *p {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Mask)
		}
	}
	return text
}

// ArgValues returns the values [Args] hides in args.
func ArgValues(args []string) []string {
	var out []string
	for i, a := range Args(args) {
		if a != args[i] {
			if _, v, ok := strings.Cut(args[i], "="); ok && strings.HasPrefix(args[i], "-") {
				out = append(out, v)
			} else {
				out = append(out, args[i])
			}
			out = append(out, URLValues(args[i])...)
			out = append(out, PairValues(args[i])...)
		}
	}
	return out
}

// URLValues returns the values [URL] hides in raw: user, password and the
// values of secret query parameters.
func URLValues(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		out = append(out, u.User.Username())
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	for k, vs := range u.Query() {
		if SecretName(k) {
			out = append(out, vs...)
		}
	}
	return out
}

// MapValues returns the values of m whose keys name a secret (headers,
// environment variables), and the secrets inside the other values: the
// password of a URL (DATABASE_URL=postgres://u:pw@db) and the secret
// pairs of a connection string (PGCONN="host=db password=pw").
func MapValues(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if SecretName(k) {
			out = append(out, v)
			// "Bearer sk-..." : the token alone may be quoted too.
			if _, tok, ok := strings.Cut(v, " "); ok {
				out = append(out, tok)
			}
			continue
		}
		out = append(out, URLValues(v)...)
		out = append(out, PairValues(v)...)
	}
	return out
}

// Writer returns a writer that passes each Write through s.Text before w.
// Each Write must hold whole URLs (a formatted line does), since a secret
// split across two Writes is not recognised.
func Writer(w io.Writer, s *Secrets) io.Writer { return &writer{w, s} }

type writer struct {
	w io.Writer
	s *Secrets
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.s.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
