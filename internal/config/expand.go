package config

import (
	"fmt"
	"strings"
)

// varRef is one ${NAME} an expanded value used.
type varRef struct {
	name string
	set  bool
}

// unsetVar records a ${NAME} without default whose variable was not set.
type unsetVar struct {
	path string
	name string
}

// expand replaces ${NAME}, ${env:NAME} and ${NAME:-default} in s with values
// from getenv, and $$ with $. A $ followed by anything else stays as it is, so "$5" needs
// no escaping. The default is itself expanded. An unset NAME without default
// expands to "" and is reported in refs with set false. It works on a parsed
// string value, so an expanded value can never change the file's structure.
func expand(s string, getenv func(string) string) (string, []varRef, error) {
	if !strings.Contains(s, "$") {
		return s, nil, nil
	}
	var b strings.Builder
	var refs []varRef
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
		case '{':
			n, val, r, err := expandRef(s[i:], getenv)
			if err != nil {
				return "", nil, err
			}
			b.WriteString(val)
			refs = append(refs, r...)
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), refs, nil
}

// expandRef expands the reference at the start of s, which begins with "${",
// and returns how many bytes it took.
func expandRef(s string, getenv func(string) string) (int, string, []varRef, error) {
	// ${env:NAME} is Cursor's and VS Code's spelling of ${NAME}; accepting it
	// lets their files be pasted as they are.
	begin := 2
	if strings.HasPrefix(s, "${env:") && !strings.HasPrefix(s, "${env:-") {
		begin = 6
	}
	j := begin
	for j < len(s) && isNameByte(s[j], j == begin) {
		j++
	}
	name := s[begin:j]
	if name == "" {
		return 0, "", nil, fmt.Errorf("invalid reference %s: a variable name starts with a letter or _; write $$ for a literal $", clip(s))
	}
	if j < len(s) && s[j] == '}' {
		v := getenv(name)
		return j + 1, v, []varRef{{name: name, set: v != ""}}, nil
	}
	if !strings.HasPrefix(s[j:], ":-") {
		if j >= len(s) {
			return 0, "", nil, fmt.Errorf("unterminated reference %s: add the closing }", clip(s))
		}
		return 0, "", nil, fmt.Errorf("unsupported reference %s: write ${NAME}, ${env:NAME} or ${NAME:-default}, where NAME is an environment variable", clip(s))
	}
	// Find the } that closes this reference, skipping nested ${...} and $$.
	start := j + 2
	depth := 0
	for k := start; k < len(s); k++ {
		switch {
		case s[k] == '$' && k+1 < len(s) && s[k+1] == '$':
			k++
		case s[k] == '$' && k+1 < len(s) && s[k+1] == '{':
			depth++
			k++
		case s[k] == '}' && depth > 0:
			depth--
		case s[k] == '}':
			if v := getenv(name); v != "" {
				return k + 1, v, []varRef{{name: name, set: true}}, nil
			}
			def, refs, err := expand(s[start:k], getenv)
			if err != nil {
				return 0, "", nil, err
			}
			return k + 1, def, refs, nil
		}
	}
	return 0, "", nil, fmt.Errorf("unterminated reference %s: add the closing }", clip(s))
}

func isNameByte(c byte, first bool) bool {
	switch {
	case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		return true
	case '0' <= c && c <= '9':
		return !first
	}
	return false
}

// clip shortens s for an error message.
func clip(s string) string {
	if i := strings.IndexByte(s, '}'); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}
