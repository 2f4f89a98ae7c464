package llm

import "fmt"

// CheckEmbeddings returns a [KindMalformed] error unless vecs holds n
// vectors of one non-zero dimension: what [Embedder] promises its callers,
// checked once here for every adapter.
func CheckEmbeddings(provider string, n int, vecs [][]float32) error {
	if len(vecs) != n {
		return MalformedError(provider, "embeddings", fmt.Errorf("%d vectors for %d texts", len(vecs), n))
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return MalformedError(provider, "embeddings", fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0])))
		}
	}
	return nil
}
