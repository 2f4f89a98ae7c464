package rank

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Query is what a tool is ranked against: a request and the conversation
// around it.
type Query struct {
	// Text is the request: the latest user message, or what a model
	// searches for through find_tools.
	Text string
	// Context holds earlier turns, most recent first. They count less
	// than Text, and less the older they are.
	Context []string
	// Used holds the catalogue names of tools already called in the
	// conversation: they, and the other tools of their servers, are
	// likely to be needed again.
	Used []string
	// Vector is the embedding of Text by the model of the index's
	// [Options].Embeddings; nil, or one of another dimension, ranks by
	// words alone.
	Vector []float32
}

// Parts break a tool's score down by where it came from.
type Parts struct {
	// Text is the score of the tool's own fields against the request and
	// its context (words and concepts, BM25F).
	Text float64 `json:"text"`
	// Server is the score of the tool's server as a whole.
	Server float64 `json:"server"`
	// Mention is the boost for a tool the request names outright.
	Mention float64 `json:"mention,omitempty"`
	// Used is the boost for a tool, or a server, used earlier.
	Used float64 `json:"used,omitempty"`
	// Embedding is the score of the tool's vector against the request's.
	Embedding float64 `json:"embedding,omitempty"`
}

// Scored is one tool's place in a ranking.
type Scored struct {
	// Index is the tool's position in the docs given to [New].
	Index int     `json:"-"`
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	Parts Parts   `json:"parts"`
}

// Rank returns every tool, most relevant to q first. Ties keep catalogue
// order, so the result is deterministic. It makes no network call.
func (ix *Index) Rank(q Query) []Scored {
	units := ix.queryUnits(q)
	n := len(ix.docs)
	text := make([]float64, n)
	ix.tools.scoreUnits(units, text, make([]float64, n))
	server := make([]float64, len(ix.serverNames))
	ix.servers.scoreUnits(units, server, make([]float64, len(server)))

	similar := ix.similarity(q.Vector)
	named := ix.named(q.Text)
	out := make([]Scored, n)
	used := make(map[string]bool, len(q.Used))
	usedServer := make(map[int]bool)
	for _, name := range q.Used {
		if i, ok := ix.byName[name]; ok {
			used[name] = true
			if k := ix.serverOf[i]; k >= 0 {
				usedServer[k] = true
			}
		}
	}
	for i := range out {
		s := Scored{Index: i, Name: ix.docs[i].Name, Parts: Parts{Text: text[i]}}
		if k := ix.serverOf[i]; k >= 0 {
			s.Parts.Server = ix.p.server * server[k]
			if usedServer[k] {
				s.Parts.Used += ix.p.usedServer
			}
		}
		if used[s.Name] {
			s.Parts.Used += ix.p.used
		}
		if named[i] {
			s.Parts.Mention = ix.p.mention
		}
		if similar != nil {
			s.Parts.Embedding = ix.p.embedding * similar[i]
		}
		s.Score = s.Parts.Text + s.Parts.Server + s.Parts.Mention + s.Parts.Used + s.Parts.Embedding
		out[i] = s
	}
	// Highest score first; ties in catalogue order. Index breaks every
	// tie, so an unstable sort gives the one order.
	slices.SortFunc(out, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return out
}

// named returns which tools text names outright: by catalogue name, or by
// a tool's own name when it has an underscore and four or more bytes
// ("send_email"; "play" is just a word). Nil when none is.
func (ix *Index) named(text string) map[int]bool {
	var out map[int]bool
	mark := func(i int) {
		if out == nil {
			out = make(map[int]bool)
		}
		out[i] = true
	}
	low := strings.ToLower(text)
	for w := range strings.FieldsFuncSeq(low, func(r rune) bool { return !wordRune(r) }) {
		for _, i := range ix.byWord[w] {
			mark(i)
		}
	}
	for _, i := range ix.oddNames { // names that are not one word: compare whole
		if mentions(low, ix.names[i]) {
			mark(i)
		}
	}
	return out
}

func wordRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 0x80
}

// Search returns the at most k tools that best match q, for a model
// looking for tools (find_tools); tools with no match at all are left out.
func (ix *Index) Search(q Query, k int) []Scored {
	ranked := ix.Rank(q)
	out := ranked[:0:0]
	for _, s := range ranked {
		if len(out) == k || s.Score <= 0 {
			break
		}
		out = append(out, s)
	}
	return out
}

// similarity returns, for each tool with a vector, how many standard
// deviations its cosine similarity to v lies above the catalogue's mean
// (0 when below); nil when v cannot be compared.
func (ix *Index) similarity(v []float32) []float64 {
	if ix.dim == 0 || len(v) != ix.dim {
		return nil
	}
	qv := normalize(v)
	cos := make([]float64, len(ix.vecs))
	var sum, sumSq float64
	n := 0
	for i, dv := range ix.vecs {
		if dv == nil {
			continue
		}
		dot := dot32(dv, qv)
		cos[i] = dot
		sum += dot
		sumSq += dot * dot
		n++
	}
	if n < 2 {
		return nil
	}
	mean := sum / float64(n)
	std := math.Sqrt(max(sumSq/float64(n)-mean*mean, 0))
	if std == 0 {
		return nil
	}
	out := make([]float64, len(cos))
	for i, dv := range ix.vecs {
		if dv != nil {
			out[i] = max(0, (cos[i]-mean)/std)
		}
	}
	return out
}

// dot32 returns the dot product of two vectors of one length, summed in
// float32 four lanes at a time: a cosine needs no more precision, and the
// similarity of 500 tools of 768 dimensions is the most arithmetic a
// ranking does.
func dot32(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
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
		if !wordByte(text, i-1) && !wordByte(text, end) {
			return true
		}
		off = i + 1
	}
}

func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}
