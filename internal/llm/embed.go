package llm

import "fmt"

// CheckEmbeddings returns vecs when it holds n vectors of one non-zero
// dimension, what [Embedder] promises its callers; otherwise nil and a
// [KindMalformed] error. Adapters return their vectors through it.
func CheckEmbeddings(provider string, n int, vecs [][]float32) ([][]float32, error) {
	if len(vecs) != n {
		return nil, MalformedError(provider, "embeddings", fmt.Errorf("%d vectors for %d texts", len(vecs), n))
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return nil, MalformedError(provider, "embeddings", fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0])))
		}
	}
	return vecs, nil
}
