package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// word is one word of a text after analysis.
type word struct {
	stem string
	// stop marks a function word: it takes part in phrases ("turn it
	// off", "out of office") but is no term of its own.
	stop bool
	// weight scales the word's contribution: words inside quotes are
	// usually names or content ("Road Trip", "passport"), not what the
	// request asks for, so they count less.
	weight float64
}

// quotedWeight is the weight of a word inside quotation marks.
const quotedWeight = 0.35

// splitWords splits s into lower-case, stemmed words: on anything that is
// not a letter or digit, and at camelCase humps, so "readFile",
// "read_file" and "reading files" share "read" and "file". Bare numbers
// are dropped: they are values, not vocabulary. An acronym's plural
// ("VMs", "PRs") loses its s, which the stemmer keeps for want of a vowel.
func splitWords(s string) []word { return splitWordsCached(s, nil) }

// splitWordsCached is splitWords with a cache of stems: an index stems the
// same words thousands of times while it is built. A nil cache is fine.
func splitWordsCached(s string, stems map[string]string) []word {
	var out []word
	start := -1
	var prev rune
	quoted := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		orig := s[start:end]
		start = -1
		if isNumber(orig) {
			return
		}
		if acronymPlural(orig) {
			orig = orig[:len(orig)-1]
		}
		raw := strings.ToLower(orig)
		st, ok := stems[raw]
		if !ok {
			st = stem(raw)
			if stems != nil {
				stems[raw] = st
			}
		}
		w := word{stem: st, stop: stopWords[raw] || len(raw) == 1, weight: 1}
		if quoted {
			w.weight = quotedWeight
		}
		out = append(out, w)
	}
	for i, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			flush(i)
			if toggles(s, i, r, quoted) {
				quoted = !quoted
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		}
		prev = r
	}
	flush(len(s))
	return out
}

// acronymPlural reports whether w is an upper-case acronym with a plural s.
func acronymPlural(w string) bool {
	if len(w) < 3 || w[len(w)-1] != 's' {
		return false
	}
	for i := 0; i < len(w)-1; i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// toggles reports whether the character r at s[i] opens or closes a
// quotation. Double quotes always do (curly ones by their shape); a single
// quote does only where it cannot be an apostrophe: opening before a word
// and after a space, closing after a word and before a space or the end.
func toggles(s string, i int, r rune, quoted bool) bool {
	switch r {
	case '"':
		return true
	case '“', '«', '„':
		return !quoted
	case '”', '»':
		return quoted
	case '\'', '‘', '’':
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		wordBefore := i > 0 && (unicode.IsLetter(before) || unicode.IsDigit(before))
		wordAfter := i+utf8.RuneLen(r) < len(s) && (unicode.IsLetter(after) || unicode.IsDigit(after))
		if quoted {
			return !wordAfter
		}
		return !wordBefore && wordAfter
	}
	return false
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// stopWords are function words: they carry no tool meaning on their own.
// Words that do ("off", "down", "new", "all") are deliberately absent;
// "up" is here because it is mostly filler ("pick up", "what's up") and the
// phrases that need it ("turn it up", "spin up") keep it.
var stopWords = map[string]bool{
	"a": true, "the": true, "an": true, "and": true, "or": true, "of": true, "to": true,
	"in": true, "on": true, "for": true, "with": true, "is": true, "it": true, "this": true,
	"that": true, "be": true, "are": true, "as": true, "at": true, "by": true, "from": true,
	"me": true, "my": true, "i": true, "you": true, "your": true, "can": true, "please": true,
	"what": true, "how": true, "do": true, "does": true, "did": true, "if": true, "into": true,
	"its": true, "will": true, "would": true, "should": true, "could": true, "about": true,
	"which": true, "we": true, "our": true, "us": true, "they": true, "them": true,
	"their": true, "he": true, "she": true, "his": true, "her": true, "him": true,
	"there": true, "here": true, "was": true, "were": true, "been": true, "has": true,
	"have": true, "had": true, "just": true, "so": true, "some": true, "any": true,
	"get": true, "got": true, "let": true, "want": true, "need": true, "s": true, "t": true,
	"m": true, "re": true, "ll": true, "ve": true, "d": true, "am": true,
	"whom": true, "whose": true, "when": true, "where": true, "why": true, "one": true,
	"an'": true, "than": true, "then": true, "these": true, "those": true, "also": true,
	"too": true, "very": true, "really": true, "up": true, "now": true, "right": true, "go": true,
	"going": true, "way": true, "thing": true,
	"things": true, "anything": true, "something": true, "everything": true, "someone": true,
	"anyone": true, "everyone": true, "people": true, "tell": true, "know": true, "see": true,
	"thanks": true, "thank": true, "hey": true, "hi": true, "ok": true,
	"okay": true, "yes": true, "no": true, "not": true, "don": true, "doesn": true,
	"isn": true, "won": true, "can't": true, "yet": true, "still": true,
	"but": true, "because": true, "while": true, "though": true, "e": true,
	"g": true, "eg": true, "ie": true, "such": true, "via": true, "each": true,
	"over": true, "under": true, "after": true, "before": true, "between": true,
}
