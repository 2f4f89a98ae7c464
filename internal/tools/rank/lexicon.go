package rank

import (
	_ "embed"
	"fmt"
	"strings"
)

// lexiconText is the built-in concept lexicon; see the comment at its top.
//
//go:embed lexicon.txt
var lexiconText string

// lexicon maps words and phrases (as stems) to concepts. A concept is a
// set of words and phrases that people use for one idea ("turn off",
// "switch off", "kill" when said of a light); a request and a tool
// description that share a concept match even when they share no word.
// It is immutable once built.
type lexicon struct {
	words   map[string][]int32
	phrases map[string][]int32 // stems joined by one space
	// starts holds the first stem of every phrase: most words start
	// none, and are not joined with their neighbours to look.
	starts  map[string]bool
	longest int // words in the longest phrase
	labels  []string
	tokens  []string // each concept's index token (see conceptToken)
	byLabel map[string]int32
	// gaps are phrases with a gap of one to three words ("turn * off"
	// meets "turn the lights off"), by the first stem of their head.
	gaps map[string][]gapPhrase
}

// gapPhrase is a phrase whose two parts may stand apart: the separable
// phrasal verbs of English ("loop Priya in", "turn the heating down").
type gapPhrase struct {
	key        string
	head, tail []string // stems
	concepts   []int32
}

// maxGap is the most words a gap phrase may have between its parts.
const maxGap = 3

// parseLexicon reads the lexicon format: one concept per line,
// "label: member, member, ...", where a member is a word or a phrase of
// up to five words; "#" starts a comment line. The label is a name for
// explanations, not itself a member.
func parseLexicon(text string) (*lexicon, error) {
	lx := &lexicon{
		words: make(map[string][]int32), phrases: make(map[string][]int32),
		byLabel: make(map[string]int32), gaps: make(map[string][]gapPhrase),
		starts: make(map[string]bool),
	}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, members, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(label) == "" {
			return nil, fmt.Errorf("lexicon line %d: want \"label: member, member\", got %q", n+1, line)
		}
		label = strings.TrimSpace(label)
		if _, dup := lx.byLabel[label]; dup {
			return nil, fmt.Errorf("lexicon line %d: label %q is used twice", n+1, label)
		}
		id := int32(len(lx.labels))
		lx.labels = append(lx.labels, label)
		lx.tokens = append(lx.tokens, conceptToken(id))
		lx.byLabel[label] = id
		for m := range strings.SplitSeq(members, ",") {
			if head, tail, ok := strings.Cut(m, "*"); ok {
				g, err := newGapPhrase(head, tail, id)
				if err != nil {
					return nil, fmt.Errorf("lexicon line %d: %w", n+1, err)
				}
				lx.addGap(g)
				continue
			}
			ws := splitWords(m)
			switch {
			case len(ws) == 0:
				continue
			case len(ws) == 1:
				lx.words[ws[0].stem] = appendOnce(lx.words[ws[0].stem], id)
			case len(ws) > 5:
				return nil, fmt.Errorf("lexicon line %d: phrase %q is longer than five words", n+1, m)
			default:
				key := joinStems(ws)
				lx.phrases[key] = appendOnce(lx.phrases[key], id)
				lx.starts[ws[0].stem] = true
				lx.longest = max(lx.longest, len(ws))
			}
		}
	}
	return lx, nil
}

func newGapPhrase(head, tail string, id int32) (gapPhrase, error) {
	hw, tw := splitWords(head), splitWords(tail)
	if len(hw) == 0 || len(tw) == 0 || len(hw)+len(tw) > 5 || strings.Contains(tail, "*") {
		return gapPhrase{}, fmt.Errorf("gap phrase %q: want one to four words, \"*\", one to four words", head+"*"+tail)
	}
	g := gapPhrase{key: joinStems(hw) + " * " + joinStems(tw), concepts: []int32{id}}
	for _, w := range hw {
		g.head = append(g.head, w.stem)
	}
	for _, w := range tw {
		g.tail = append(g.tail, w.stem)
	}
	return g, nil
}

// addGap adds g, merging it with a gap phrase of the same words.
func (lx *lexicon) addGap(g gapPhrase) {
	gs := lx.gaps[g.head[0]]
	for i := range gs {
		if gs[i].key == g.key {
			gs[i].concepts = appendOnce(gs[i].concepts, g.concepts[0])
			return
		}
	}
	lx.gaps[g.head[0]] = append(gs, g)
}

func appendOnce(ids []int32, id int32) []int32 {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

func joinStems(ws []word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.stem)
	}
	return b.String()
}

// span is a run of words that expresses concepts: one word, or a phrase
// of the lexicon.
type span struct {
	key      string // the stems, joined by one space
	weight   float64
	concepts []int32
}

// spans returns the concepts of every word of ws and of every phrase of
// the lexicon in ws. Stop words stand for no concept on their own.
func (lx *lexicon) spans(ws []word) []span {
	var out []span
	for i, w := range ws {
		if !w.stop {
			if ids := lx.words[w.stem]; len(ids) > 0 {
				out = append(out, span{key: w.stem, weight: w.weight, concepts: ids})
			}
		}
		for n := 2; lx.starts[w.stem] && n <= lx.longest && i+n <= len(ws); n++ {
			key := joinStems(ws[i : i+n])
			ids, ok := lx.phrases[key]
			if !ok {
				continue
			}
			weight := 1.0
			for _, x := range ws[i : i+n] {
				weight = min(weight, x.weight)
			}
			out = append(out, span{key: key, weight: weight, concepts: ids})
		}
		for _, g := range lx.gaps[w.stem] {
			if sp, ok := g.match(ws, i); ok {
				out = append(out, sp)
			}
		}
	}
	return out
}

// match reports whether g occurs in ws starting at i, with a gap of one to
// maxGap words between its head and its tail.
func (g *gapPhrase) match(ws []word, i int) (span, bool) {
	if !stemsAt(ws, i, g.head) {
		return span{}, false
	}
	after := i + len(g.head)
	for j := after + 1; j <= after+maxGap; j++ {
		if !stemsAt(ws, j, g.tail) {
			continue
		}
		weight := 1.0
		for _, x := range ws[i:after] {
			weight = min(weight, x.weight)
		}
		for _, x := range ws[j : j+len(g.tail)] {
			weight = min(weight, x.weight)
		}
		return span{key: g.key, weight: weight, concepts: g.concepts}, true
	}
	return span{}, false
}

func stemsAt(ws []word, i int, stems []string) bool {
	if i+len(stems) > len(ws) {
		return false
	}
	for k, s := range stems {
		if ws[i+k].stem != s {
			return false
		}
	}
	return true
}

// label returns the id of the concept with the given label.
func (lx *lexicon) label(name string) (int32, bool) {
	id, ok := lx.byLabel[name]
	return id, ok
}
