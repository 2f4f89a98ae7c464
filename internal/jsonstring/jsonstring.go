// Package jsonstring appends a Go string to a buffer as a JSON string,
// as encoding/json writes it, without json.Marshal's reflection and
// allocation. The audit journal's lines and the gateway's answers are
// written this way on every call.
package jsonstring

import "unicode/utf8"

// Append appends s to dst as encoding/json encodes a string: quoted, with
// \", \\, \b, \f, \n, \r and \t, other control characters as \u00XX,
// U+2028 and U+2029 escaped, and invalid UTF-8 replaced by \ufffd. With
// html, <, > and & are escaped too (\u003c, \u003e, \u0026), as
// json.Marshal does by default. The bytes are encoding/json's
// (TestAppendAsEncodingJSON).
func Append(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
