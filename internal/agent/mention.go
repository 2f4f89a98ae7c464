package agent

import (
	"unicode"
	"unicode/utf8"
)

// Mention is one "@name" in a text; Start and End are byte offsets of the
// whole mention, '@' included.
type Mention struct {
	Name       string
	Start, End int
}

// ScanMentions returns the candidate mentions in text, in order. A mention
// is '@' at the start of a word (not preceded by a letter, digit or '_', so
// the '@' of test@example.com is not one) followed by one or more of
// [A-Za-z0-9_-], and not followed by '.' and a word character (so
// @example.com is not one either, while "@bob." ending a sentence is).
// Whether a candidate names an agent is for the caller to check: unknown
// names are ordinary text.
func ScanMentions(text string) []Mention {
	var out []Mention
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(text[:i])
			if isWordRune(prev) {
				continue
			}
		}
		j := i + 1
		for j < len(text) && nameByte(text[j]) {
			j++
		}
		if j == i+1 {
			continue
		}
		if j+1 < len(text) && text[j] == '.' {
			next, _ := utf8.DecodeRuneInString(text[j+1:])
			if isWordRune(next) {
				i = j
				continue
			}
		}
		// A name glued to more word runes ("@bobé") is not a clean mention.
		if j < len(text) {
			next, _ := utf8.DecodeRuneInString(text[j:])
			if next >= utf8.RuneSelf && isWordRune(next) {
				i = j
				continue
			}
		}
		out = append(out, Mention{Name: text[i+1 : j], Start: i, End: j})
		i = j - 1
	}
	return out
}

func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
