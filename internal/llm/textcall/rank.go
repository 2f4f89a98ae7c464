package textcall

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// index ranks tools against a conversation with BM25 over the words of
// their names, descriptions and parameter names, plus a boost for a tool
// the conversation names outright. It is immutable once built.
type index struct {
	postings map[string][]posting
	docLen   []float64
	avgLen   float64
	// full and short are the lower-cased tool names and their part after
	// "__", for the name-mention boost.
	full, short []string
}

type posting struct {
	doc int
	tf  float64
}

// BM25 parameters: the usual values.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// Weights: name words count double; words from earlier messages count
	// less than the latest user message; naming a tool outright wins.
	nameWeight    = 2
	contextWeight = 0.4
	mentionBoost  = 8
)

func newIndex(docs []rankDoc) *index {
	ix := &index{postings: make(map[string][]posting), docLen: make([]float64, len(docs))}
	total := 0.0
	tf := make(map[string]float64)
	for i, d := range docs {
		clear(tf)
		for _, w := range words(d.name) {
			tf[w] += nameWeight
		}
		for _, w := range words(d.text) {
			tf[w]++
		}
		n := 0.0
		for _, v := range tf {
			n += v
		}
		ix.docLen[i] = n
		total += n
		for w, v := range tf {
			ix.postings[w] = append(ix.postings[w], posting{doc: i, tf: v})
		}
		low := strings.ToLower(d.name)
		ix.full = append(ix.full, low)
		short := ""
		if k := strings.LastIndex(low, "__"); k >= 0 {
			short = low[k+2:]
		}
		ix.short = append(ix.short, short)
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
	return ix
}

// rankDoc is what the index reads of one tool.
type rankDoc struct {
	name string
	text string // description and parameter names
}

// rank returns the tool indices, most relevant first. Ties keep catalogue
// order, so the result is deterministic.
func (ix *index) rank(latest, context string) []int {
	n := len(ix.docLen)
	scores := make([]float64, n)
	ix.score(scores, latest, 1)
	ix.score(scores, context, contextWeight)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order
}

// score adds weight times the BM25 score of query to scores, and the boost
// for tools named in query.
func (ix *index) score(scores []float64, query string, weight float64) {
	if query == "" {
		return
	}
	terms := words(query)
	slices.Sort(terms) // a fixed order of additions keeps scores reproducible
	terms = slices.Compact(terms)
	n := float64(len(ix.docLen))
	for _, t := range terms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			norm := bm25K1 * (1 - bm25B + bm25B*ix.docLen[p.doc]/ix.avgLen)
			scores[p.doc] += weight * idf * p.tf * (bm25K1 + 1) / (p.tf + norm)
		}
	}
	low := strings.ToLower(query)
	for i := range ix.full {
		if mentions(low, ix.full[i]) || len(ix.short[i]) >= 4 && mentions(low, ix.short[i]) {
			scores[i] += weight * mentionBoost
		}
	}
}

// mentions reports whether text contains name as a whole word.
func mentions(text, name string) bool {
	if name == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(text[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		if !wordByteBefore(text, i) && !wordByteAt(text, end) {
			return true
		}
		off = i + 1
	}
}

func wordByteBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordByteAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// words splits s into lower-case, lightly stemmed words: on anything that
// is not a letter or digit, and at camelCase humps, so "readFile",
// "read_file" and "reading files" share "read" and "file".
func words(s string) []string {
	var out []string
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 {
			if w := stem(strings.ToLower(s[start:end])); len(w) > 1 && !stopWords[w] {
				out = append(out, w)
			}
			start = -1
		}
	}
	for i, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			flush(i)
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

// stem strips the commonest English suffixes. It is deliberately crude:
// it only has to make "files" meet "file" and "searching" meet "search".
func stem(w string) string {
	for _, suf := range [...]string{"ing", "ies", "es", "ed", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			if suf == "ies" {
				return w[:len(w)-3] + "y"
			}
			if suf == "es" && !strings.HasSuffix(w, "ses") && !strings.HasSuffix(w, "xes") && !strings.HasSuffix(w, "ches") && !strings.HasSuffix(w, "shes") {
				return w[:len(w)-1] // "files" -> "file", "names" -> "name"
			}
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

var stopWords = map[string]bool{
	"the": true, "an": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "is": true, "it": true, "this": true, "that": true,
	"be": true, "are": true, "as": true, "at": true, "by": true, "from": true, "me": true,
	"my": true, "you": true, "your": true, "can": true, "please": true, "what": true,
	"how": true, "do": true, "does": true, "if": true, "into": true, "its": true, "use": true,
	"will": true, "would": true, "should": true, "could": true, "about": true, "which": true,
}
