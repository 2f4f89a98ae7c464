package rank

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Match is one reason for a tool's text score: a word or concept of the
// query found in one field of the tool.
type Match struct {
	// Term is the stemmed word, or the label of the concept.
	Term string `json:"term"`
	// Concept reports whether Term is a concept of the lexicon rather
	// than a word.
	Concept bool `json:"concept,omitempty"`
	// Field names the part of the tool: "name", "server", "description",
	// "parameters", "parameter text" or "server text".
	Field string  `json:"field"`
	Score float64 `json:"score"`
}

// Explain returns why the tool called name scores as it does for q: every
// word and concept of q found in the tool, with the share of the text
// score each field of the tool gave it, largest first. It returns nil for
// a name not in the index. The scores add up to [Parts].Text.
func (ix *Index) Explain(q Query, name string) []Match {
	doc, ok := ix.byName[name]
	if !ok {
		return nil
	}
	var out []Match
	add := func(tok string, weight float64, p posting) {
		var sum float32
		for _, v := range p.parts {
			sum += v
		}
		term, concept := ix.describe(tok)
		for f, v := range p.parts {
			if v != 0 {
				out = append(out, Match{
					Term: term, Concept: concept, Field: field(f).String(),
					Score: weight * float64(p.score) * float64(v/sum),
				})
			}
		}
	}
	for _, u := range ix.queryUnits(q) {
		if p, ok := ix.tools.posting(u.word, doc); ok && u.word != "" {
			add(u.word, u.weight, p)
		}
		// Only the unit's best concept counts, as in Rank.
		var best string
		var bestP posting
		for _, c := range u.concepts {
			if p, ok := ix.tools.posting(c, doc); ok && (best == "" || p.score > bestP.score) {
				best, bestP = c, p
			}
		}
		if best != "" {
			add(best, u.cweight, bestP)
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// posting returns the posting of tok for doc.
func (ix *bm25f) posting(tok string, doc int) (posting, bool) {
	id, ok := ix.tokens[tok]
	if !ok {
		return posting{}, false
	}
	ps := ix.postings[id] // in document order
	i, found := slices.BinarySearchFunc(ps, int32(doc), func(p posting, d int32) int { return cmp.Compare(p.doc, d) })
	if !found {
		return posting{}, false
	}
	return ps[i], true
}

// describe turns an index token back into a word or a concept label.
func (ix *Index) describe(tok string) (string, bool) {
	if id, ok := strings.CutPrefix(tok, "c:"); ok {
		if n, err := strconv.Atoi(id); err == nil && n < len(ix.lex.labels) {
			return ix.lex.labels[n], true
		}
	}
	return strings.TrimPrefix(tok, "w:"), false
}
