package rank

import "strings"

// stem returns the Porter2 ("English" Snowball) stem of a lower-case word,
// so that "translate", "translation" and "translating" meet. Words that are
// not plain ASCII letters are returned unchanged: identifiers and numbers
// must match exactly.
func stem(w string) string {
	if len(w) <= 2 || !asciiLetters(w) {
		return w
	}
	if s, ok := stemExceptions[w]; ok {
		return s
	}
	b := []byte(strings.TrimPrefix(w, "'"))
	// A y at the start or after a vowel is a consonant: mark it Y.
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
		}
	}
	r1, r2 := regions(b)
	b = step1a(b)
	if s, ok := afterStep1a[string(b)]; ok {
		return s
	}
	b = step1b(b, r1)
	b = step1c(b)
	b = step2(b, r1)
	b = step3(b, r1, r2)
	b = step4(b, r2)
	b = step5(b, r1, r2)
	return strings.ReplaceAll(string(b), "Y", "y")
}

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if (w[i] < 'a' || w[i] > 'z') && w[i] != '\'' {
			return false
		}
	}
	return true
}

var stemExceptions = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
	"cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

var afterStep1a = map[string]string{
	"inning": "inning", "outing": "outing", "canning": "canning", "herring": "herring",
	"earring": "earring", "proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions returns the starts of R1 and R2: each is the part after the
// first non-vowel that follows a vowel, R2 within R1.
func regions(b []byte) (r1, r2 int) {
	r1 = len(b)
	for _, p := range [...]string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(string(b), p) {
			r1 = len(p)
			break
		}
	}
	if r1 == len(b) {
		r1 = regionAfter(b, 0)
	}
	return r1, regionAfter(b, r1)
}

func regionAfter(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if !isVowel(b[i]) && isVowel(b[i-1]) {
			return i + 1
		}
	}
	return len(b)
}

func hasSuffix(b []byte, s string) bool { return strings.HasSuffix(string(b), s) }

func containsVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// shortSyllableAt reports whether b ends in a short syllable.
func endsShortSyllable(b []byte) bool {
	n := len(b)
	if n == 2 {
		return isVowel(b[0]) && !isVowel(b[1])
	}
	if n < 3 {
		return false
	}
	c := b[n-1]
	return !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
}

func isShort(b []byte, r1 int) bool { return r1 >= len(b) && endsShortSyllable(b) }

func step1a(b []byte) []byte {
	for _, s := range [...]string{"'s'", "'s", "'"} {
		if hasSuffix(b, s) {
			b = b[:len(b)-len(s)]
			break
		}
	}
	switch {
	case hasSuffix(b, "sses"):
		return b[:len(b)-2]
	case hasSuffix(b, "ied"), hasSuffix(b, "ies"):
		if len(b) > 4 {
			return b[:len(b)-2]
		}
		return b[:len(b)-1]
	case hasSuffix(b, "us"), hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		if len(b) >= 3 && containsVowel(b[:len(b)-2]) {
			return b[:len(b)-1]
		}
	}
	return b
}

func step1b(b []byte, r1 int) []byte {
	for _, s := range [...]string{"eedly", "eed"} {
		if hasSuffix(b, s) {
			if len(b)-len(s) >= r1 {
				return append(b[:len(b)-len(s)], "ee"...)
			}
			return b
		}
	}
	for _, s := range [...]string{"ingly", "edly", "ing", "ed"} {
		if !hasSuffix(b, s) {
			continue
		}
		stemPart := b[:len(b)-len(s)]
		if !containsVowel(stemPart) {
			return b
		}
		b = stemPart
		switch {
		case hasSuffix(b, "at"), hasSuffix(b, "bl"), hasSuffix(b, "iz"):
			return append(b, 'e')
		case endsDouble(b):
			return b[:len(b)-1]
		case isShort(b, r1):
			return append(b, 'e')
		}
		return b
	}
	return b
}

func endsDouble(b []byte) bool {
	n := len(b)
	if n < 2 || b[n-1] != b[n-2] {
		return false
	}
	return strings.IndexByte("bdfgmnprt", b[n-1]) >= 0
}

func step1c(b []byte) []byte {
	n := len(b)
	if n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

// suffixRule replaces suffix with repl when the suffix starts in the region.
type suffixRule struct{ suffix, repl string }

var step2Rules = []suffixRule{
	{"ization", "ize"},
	{"ational", "ate"},
	{"fulness", "ful"},
	{"ousness", "ous"},
	{"iveness", "ive"},
	{"tional", "tion"},
	{"biliti", "ble"},
	{"lessli", "less"},
	{"entli", "ent"},
	{"ation", "ate"},
	{"alism", "al"},
	{"aliti", "al"},
	{"ousli", "ous"},
	{"iviti", "ive"},
	{"fulli", "ful"},
	{"enci", "ence"},
	{"anci", "ance"},
	{"abli", "able"},
	{"izer", "ize"},
	{"ator", "ate"},
	{"alli", "al"},
	{"bli", "ble"},
	{"ogi", "og"},
	{"li", ""},
}

func step2(b []byte, r1 int) []byte {
	for _, r := range step2Rules {
		if !hasSuffix(b, r.suffix) {
			continue
		}
		at := len(b) - len(r.suffix)
		if at < r1 {
			return b
		}
		switch r.suffix {
		case "ogi":
			if at == 0 || b[at-1] != 'l' {
				return b
			}
		case "li":
			if at == 0 || strings.IndexByte("cdeghkmnrt", b[at-1]) < 0 {
				return b
			}
		}
		return append(b[:at], r.repl...)
	}
	return b
}

var step3Rules = []suffixRule{
	{"ational", "ate"},
	{"tional", "tion"},
	{"alize", "al"},
	{"icate", "ic"},
	{"iciti", "ic"},
	{"ative", ""},
	{"ical", "ic"},
	{"ness", ""},
	{"ful", ""},
}

func step3(b []byte, r1, r2 int) []byte {
	for _, r := range step3Rules {
		if !hasSuffix(b, r.suffix) {
			continue
		}
		at := len(b) - len(r.suffix)
		if at < r1 || r.suffix == "ative" && at < r2 {
			return b
		}
		return append(b[:at], r.repl...)
	}
	return b
}

var step4Suffixes = []string{
	"ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous",
	"ive", "ize", "ion", "al", "er", "ic",
}

func step4(b []byte, r2 int) []byte {
	for _, s := range step4Suffixes {
		if !hasSuffix(b, s) {
			continue
		}
		at := len(b) - len(s)
		if at < r2 {
			return b
		}
		if s == "ion" && (at == 0 || b[at-1] != 's' && b[at-1] != 't') {
			return b
		}
		return b[:at]
	}
	return b
}

func step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch {
	case n > 0 && b[n-1] == 'e':
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(b[:n-1]) {
			return b[:n-1]
		}
	case n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && n-1 >= r2:
		return b[:n-1]
	}
	return b
}
