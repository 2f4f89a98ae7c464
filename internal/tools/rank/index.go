package rank

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// params are the retriever's weights. They were chosen by measurement on
// the development requests of testdata/toolbench (see eval_test.go and
// docs/BENCHMARKS.md).
type params struct {
	k1, b       float64
	fieldWeight [numFields]float64
	// concept is the weight of a shared concept relative to a shared word.
	concept float64
	// entity is the weight of a concept found by an entity pattern (an
	// e-mail address, an amount).
	entity float64
	// context is the weight of the most recent earlier turn; each turn
	// before it counts contextDecay times less.
	context, contextDecay float64
	// server weighs the server stage: how well the request matches the
	// server as a whole.
	server float64
	// mention is added to a tool the request names outright.
	mention float64
	// used is added to a tool already called in the conversation, and
	// usedServer to the other tools of its server.
	used, usedServer float64
	// reported multiplies the weight of words after "that" or "saying"
	// (0 leaves them alone). See emphasize.
	reported float64
	// embedding weighs the similarity of a tool's vector to the request's
	// (in standard deviations above the catalogue's mean, so it is on a
	// scale of its own whatever the model).
	embedding float64
}

func defaultParams() params {
	// The medians of the weights the five folds of TestTune chose, each
	// on the other four fifths of the development requests.
	return params{
		k1: 1.8, b: 0.375,
		fieldWeight: [numFields]float64{
			fieldName: 2.25, fieldServer: 1.5, fieldDesc: 1, fieldParams: 0.45,
			fieldParamText: 0.8, fieldServerText: 0.3,
		},
		concept: 1.2, entity: 2.4,
		context: 0.4, contextDecay: 0.6,
		server: 0.225, mention: 8,
		used: 1.5, usedServer: 0.8,
		reported: 0.5,
		// Not measured: no embedding model can be reached here. One
		// standard deviation counts as much as a plain word match in a
		// description.
		embedding: 1,
	}
}

// Options configure an [Index]. A nil or zero Options means defaults.
type Options struct {
	// Instructions maps a server name to the instructions the server gave
	// at initialization; they describe all of its tools.
	Instructions map[string]string
	// Embeddings, when set, are the vectors of the tools (see
	// [EmbedCatalogue]); a [Query] with a Vector then also ranks by
	// similarity. Tools without a vector score by words alone.
	Embeddings *Embeddings
}

// Index ranks the tools of one catalogue for requests. Build one with
// [New] when the catalogue changes; it is immutable and safe for
// concurrent use.
type Index struct {
	docs    []Doc
	p       params
	lex     *lexicon
	tools   *bm25f
	servers *bm25f
	// serverOf is each doc's index in serverNames; -1 for built-ins.
	serverOf    []int
	serverNames []string
	byName      map[string]int
	// names are the lower-case catalogue names. byWord finds the tools a
	// word of a request names outright (see named); oddNames are those
	// whose name is not one word, checked by substring.
	names    []string
	byWord   map[string][]int
	oddNames []int
	// stems caches stems while the index is built; nil afterwards.
	stems map[string]string
	// vecs holds each doc's unit vector, nil for a doc without one; dim
	// is their dimension, 0 without embeddings.
	vecs [][]float32
	dim  int
}

// builtinLexicon returns the parsed built-in lexicon. It is parsed once per
// process, on first use: parsing costs several milliseconds, and the
// result is never modified, so sharing it is safe.
var builtinLexicon = sync.OnceValue(func() *lexicon {
	lx, err := parseLexicon(lexiconText)
	if err != nil {
		panic(fmt.Sprintf("rank: built-in lexicon: %v", err)) // a programmer error, caught by the tests
	}
	return lx
})

// New indexes docs. opts may be nil. The docs keep their order: Rank
// reports each tool with its index in docs.
func New(docs []Doc, opts *Options) *Index {
	return newIndex(docs, opts, defaultParams(), builtinLexicon())
}

func newIndex(docs []Doc, opts *Options, p params, lx *lexicon) *Index {
	var o Options
	if opts != nil {
		o = *opts
	}
	ix := &Index{
		docs: docs, p: p, lex: lx,
		serverOf: make([]int, len(docs)), byName: make(map[string]int, len(docs)),
		byWord: make(map[string][]int),
		stems:  make(map[string]string),
	}
	serverIdx := make(map[string]int)
	toolDocs := make([]*docTokens, len(docs))
	var serverDocs []*docTokens
	for i, d := range docs {
		ix.byName[d.Name] = i
		ix.indexName(i, d)
		schema := readSchema(d.InputSchema)
		td := newDocTokens()
		ix.addField(td, fieldName, d.Tool+" "+d.Title)
		ix.addField(td, fieldServer, d.Server)
		ix.addField(td, fieldDesc, d.Description)
		ix.addField(td, fieldParams, strings.Join(schema.params, " "))
		ix.addField(td, fieldParamText, strings.Join(schema.text, " "))
		ix.addField(td, fieldServerText, o.Instructions[d.Server]+" "+annotationText(d.Annotations))
		toolDocs[i] = td

		ix.serverOf[i] = -1
		if d.Server == "" {
			continue
		}
		k, ok := serverIdx[d.Server]
		if !ok {
			k = len(ix.serverNames)
			serverIdx[d.Server] = k
			ix.serverNames = append(ix.serverNames, d.Server)
			sd := newDocTokens()
			ix.addField(sd, fieldServer, d.Server)
			ix.addField(sd, fieldServerText, o.Instructions[d.Server])
			serverDocs = append(serverDocs, sd)
		}
		ix.serverOf[i] = k
		sd := serverDocs[k]
		ix.addField(sd, fieldName, d.Tool)
		ix.addField(sd, fieldDesc, d.Description)
		ix.addField(sd, fieldParams, strings.Join(schema.params, " "))
	}
	ix.stems = nil
	if em := o.Embeddings; em != nil && em.dim > 0 {
		ix.dim, ix.vecs = em.dim, make([][]float32, len(docs))
		for i, d := range docs {
			ix.vecs[i] = em.vecs[textKey(embedText(d))]
		}
	}
	ix.tools = buildBM25F(toolDocs, &p)
	ix.servers = buildBM25F(serverDocs, &p)
	return ix
}

// indexName records how a request may name doc i outright.
func (ix *Index) indexName(i int, d Doc) {
	name := strings.ToLower(d.Name)
	ix.names = append(ix.names, name)
	if oneWord(name) {
		ix.byWord[name] = append(ix.byWord[name], i)
	} else {
		ix.oddNames = append(ix.oddNames, i)
	}
	if short := strings.ToLower(d.Tool); short != name && len(short) >= 4 && strings.Contains(short, "_") && oneWord(short) {
		ix.byWord[short] = append(ix.byWord[short], i)
	}
}

func oneWord(s string) bool {
	for _, r := range s {
		if !wordRune(r) {
			return false
		}
	}
	return s != ""
}

// addField analyses text into field f of d: its words, and the concepts
// its words and phrases express.
func (ix *Index) addField(d *docTokens, f field, text string) {
	ws := splitWordsCached(text, ix.stems)
	for _, w := range ws {
		if w.stop {
			continue
		}
		d.add(f, wordToken(w.stem))
		d.len[f]++
	}
	for _, sp := range ix.lex.spans(ws) {
		for _, id := range sp.concepts {
			d.add(f, ix.lex.tokens[id])
		}
	}
}

func wordToken(stem string) string { return "w:" + stem }

func conceptToken(id int32) string { return "c:" + strconv.Itoa(int(id)) }

// Len returns the number of tools indexed.
func (ix *Index) Len() int { return len(ix.docs) }

// Doc returns the i-th tool as given to [New].
func (ix *Index) Doc(i int) Doc { return ix.docs[i] }
