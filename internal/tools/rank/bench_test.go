package rank

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkRank ranks the 506 tools of the toolbench catalogue for one
// request with two earlier turns and a used tool (the target is at most
// 2 ms per request on the project's 2-core machine; docs/BENCHMARKS.md).
func BenchmarkRank(b *testing.B) {
	ix := New(DocsOf(LoadCatalogue(b)), nil)
	q := Query{
		Text:    "Kill the lights in the living room and send the Q3 numbers to finance@acme.com",
		Context: []string{"Is LH 455 on time?", "What does my day look like tomorrow?"},
		Used:    []string{"travel__get_flight_status"},
	}
	b.ReportAllocs()
	for b.Loop() {
		ix.Rank(q)
	}
}

// BenchmarkNew indexes the toolbench catalogue: the cost paid once per
// catalogue change.
func BenchmarkNew(b *testing.B) {
	docs := DocsOf(LoadCatalogue(b))
	b.ReportAllocs()
	for b.Loop() {
		New(docs, nil)
	}
}

// BenchmarkRankEmbeddings is BenchmarkRank with 768-dimension vectors for
// every tool and the request: the cost of the similarity on top.
func BenchmarkRankEmbeddings(b *testing.B) {
	docs := DocsOf(LoadCatalogue(b))
	rng := rand.New(rand.NewPCG(1, 2))
	random := EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, 768)
			for k := range out[i] {
				out[i][k] = rng.Float32() - 0.5
			}
		}
		return out, nil
	})
	em, err := EmbedCatalogue(b.Context(), docs, random, nil)
	if err != nil {
		b.Fatal(err)
	}
	ix := New(docs, &Options{Embeddings: em})
	vec, _ := random.Embed(b.Context(), []string{"q"})
	q := Query{Text: "Kill the lights in the living room", Vector: vec[0]}
	b.ReportAllocs()
	for b.Loop() {
		ix.Rank(q)
	}
}
