package rank

import "math"

// field is one part of a tool's text. Each is weighted and
// length-normalised on its own (BM25F), so a word in a tool's name counts
// more than the same word deep in a parameter description.
type field int

const (
	fieldName       field = iota // the tool's own name, split into words, and its title
	fieldServer                  // the server's name
	fieldDesc                    // the description
	fieldParams                  // parameter names
	fieldParamText               // parameter descriptions and enum values
	fieldServerText              // the server's instructions, and annotation hints
	numFields
)

var fieldNames = [numFields]string{"name", "server", "description", "parameters", "parameter text", "server text"}

// String returns the field's name for explanations.
func (f field) String() string { return fieldNames[f] }

// posting is one token's presence in one document: its BM25F contribution
// (before the query weight) and the share each field has in it.
type posting struct {
	doc   int32
	score float32
	parts [numFields]float32 // weighted, normalised term frequency per field
}

// bm25f is an inverted index over documents made of fields. Token scores
// do not depend on the query, so they are computed once at build time and
// a query only adds them up. It is immutable once built.
type bm25f struct {
	tokens   map[string]int32
	postings [][]posting
	n        int
}

// docTokens is one document's token frequencies per field, and the length
// of each field in words.
type docTokens struct {
	tf  map[string]*[numFields]float64
	len [numFields]float64
}

func newDocTokens() *docTokens { return &docTokens{tf: make(map[string]*[numFields]float64)} }

// add counts one occurrence of tok in field f.
func (d *docTokens) add(f field, tok string) {
	c := d.tf[tok]
	if c == nil {
		c = new([numFields]float64)
		d.tf[tok] = c
	}
	c[f]++
}

func buildBM25F(docs []*docTokens, p *params) *bm25f {
	ix := &bm25f{tokens: make(map[string]int32), n: len(docs)}
	var avg [numFields]float64
	for _, d := range docs {
		for f := range avg {
			avg[f] += d.len[f]
		}
	}
	for f := range avg {
		avg[f] = max(avg[f]/float64(max(len(docs), 1)), 1)
	}
	for i, d := range docs {
		var norm [numFields]float64
		for f := range norm {
			norm[f] = 1 - p.b + p.b*d.len[f]/avg[f]
		}
		for tok, tf := range d.tf {
			post := posting{doc: int32(i)}
			for f, n := range tf {
				post.parts[f] = float32(p.fieldWeight[f] * n / norm[f])
			}
			id, ok := ix.tokens[tok]
			if !ok {
				id = int32(len(ix.postings))
				ix.tokens[tok] = id
				ix.postings = append(ix.postings, nil)
			}
			ix.postings[id] = append(ix.postings[id], post)
		}
	}
	for _, ps := range ix.postings {
		df := float64(len(ps))
		idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		for k := range ps {
			var tf float64
			for _, v := range ps[k].parts {
				tf += float64(v)
			}
			ps[k].score = float32(idf * tf * (p.k1 + 1) / (tf + p.k1))
		}
	}
	return ix
}
