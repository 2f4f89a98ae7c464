package rank

import (
	"cmp"
	"slices"
	"strings"
)

// unit is one thing a query says: a word, a phrase or an entity. A word
// scores through itself and through the concepts it stands for; however
// many concepts a word belongs to ("file": document, attachment, path...),
// only its best-matching concept counts for a tool, so a word with many
// senses weighs no more than a word with one.
type unit struct {
	key      string
	word     string  // the word's index token; "" for phrases and entities
	weight   float64 // of the word itself
	concepts []string
	cweight  float64 // of each concept
}

// queryUnits returns the units of q in a fixed order (so sums of floats,
// and so ties, come out the same on every run). A unit said several times
// counts once, with its largest weight.
func (ix *Index) queryUnits(q Query) []unit {
	byKey := make(map[string]unit)
	add := func(u unit) {
		if old, ok := byKey[u.key]; !ok || u.weight+u.cweight > old.weight+old.cweight {
			byKey[u.key] = u
		}
	}
	ix.textUnits(q.Text, 1, add)
	w := ix.p.context
	for _, c := range q.Context {
		ix.textUnits(c, w, add)
		w *= ix.p.contextDecay
	}
	out := make([]unit, 0, len(byKey))
	for _, u := range byKey {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b unit) int { return cmp.Compare(a.key, b.key) })
	return out
}

// maxTextBytes bounds each text of a query: a request longer than this
// says what it wants in its last part, and a bound keeps a pasted
// document from costing more than a request.
const maxTextBytes = 8 << 10

// textUnits calls add for every unit of text, weighted by scale.
func (ix *Index) textUnits(text string, scale float64, add func(unit)) {
	if len(text) > maxTextBytes {
		text = strings.ToValidUTF8(text[len(text)-maxTextBytes:], "")
	}
	rest, found := findEntities(text)
	for _, label := range found {
		if id, ok := ix.lex.label(label); ok {
			add(unit{key: "=" + label, concepts: []string{ix.lex.tokens[id]}, cweight: scale * ix.p.entity})
		}
	}
	ws := splitWords(rest)
	if scale == 1 {
		ix.emphasize(ws)
	}
	words := make(map[string]float64)
	for _, w := range ws {
		if !w.stop {
			words[w.stem] = max(words[w.stem], w.weight)
		}
	}
	for _, sp := range ix.lex.spans(ws) {
		u := unit{key: sp.key, cweight: scale * sp.weight * ix.p.concept}
		for _, id := range sp.concepts {
			u.concepts = append(u.concepts, ix.lex.tokens[id])
		}
		if w, ok := words[sp.key]; ok {
			u.word, u.weight = wordToken(sp.key), scale*w
			delete(words, sp.key)
		}
		add(u)
	}
	for stem, w := range words {
		add(unit{key: stem, word: wordToken(stem), weight: scale * w})
	}
}

// scoreUnits adds the score of every unit in each document to scores.
// best is scratch space of len(scores), all zero, and left so.
func (ix *bm25f) scoreUnits(units []unit, scores, best []float64) {
	var touched []int32
	for _, u := range units {
		if id, ok := ix.tokens[u.word]; ok && u.word != "" {
			for _, p := range ix.postings[id] {
				scores[p.doc] += u.weight * float64(p.score)
			}
		}
		for _, c := range u.concepts {
			id, ok := ix.tokens[c]
			if !ok {
				continue
			}
			for _, p := range ix.postings[id] {
				v := u.cweight * float64(p.score)
				if best[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				best[p.doc] = max(best[p.doc], v)
			}
		}
		for _, d := range touched {
			scores[d] += best[d]
			best[d] = 0
		}
		touched = touched[:0]
	}
}

// emphasize lowers the weight of what follows "that" or "saying" in a
// request with a verb and an object before it: "DM Paolo that the build
// is green", "Answer Jen saying Tuesday works". That is what to say, not
// what to do. (Raising a request's first words instead was measured and
// lost recall.)
func (ix *Index) emphasize(ws []word) {
	content := 0
	reported := false
	for i := range ws {
		w := &ws[i]
		if w.stem == "that" || w.stem == "say" && content > 0 {
			reported = reported || content >= 2 && ix.p.reported > 0
			continue
		}
		if w.stop {
			continue
		}
		if reported {
			w.weight *= ix.p.reported
		}
		content++
	}
}
