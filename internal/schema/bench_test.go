package schema

import (
	"encoding/json"
	"testing"
)

// BenchmarkToolList converts the input schemas of 1,000 tools for each
// provider, as an adapter does when it builds a request's tool list. The
// schemas cycle through the reference servers' tools and the hand-written
// corpus.
func BenchmarkToolList(b *testing.B) {
	var corpus []json.RawMessage
	for _, c := range loadCases(b) {
		for _, s := range c.schemas {
			corpus = append(corpus, s.schema)
		}
	}
	schemas := make([]json.RawMessage, 1000)
	for i := range schemas {
		schemas[i] = corpus[i%len(corpus)]
	}
	for _, p := range providers {
		b.Run(string(p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range schemas {
					if _, err := For(p, s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
