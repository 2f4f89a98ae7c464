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
	longest int                // words in the longest phrase
	labels  []string
	byLabel map[string]int32
}

// parseLexicon reads the lexicon format: one concept per line,
// "label: member, member, ...", where a member is a word or a phrase of
// up to five words; "#" starts a comment line. The label is a name for
// explanations, not itself a member.
func parseLexicon(text string) (*lexicon, error) {
	lx := &lexicon{words: make(map[string][]int32), phrases: make(map[string][]int32), byLabel: make(map[string]int32)}
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
		lx.byLabel[label] = id
		for m := range strings.SplitSeq(members, ",") {
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
				lx.longest = max(lx.longest, len(ws))
			}
		}
	}
	return lx, nil
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
		for n := 2; n <= lx.longest && i+n <= len(ws); n++ {
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
	}
	return out
}

// label returns the id of the concept with the given label.
func (lx *lexicon) label(name string) (int32, bool) {
	id, ok := lx.byLabel[name]
	return id, ok
}
