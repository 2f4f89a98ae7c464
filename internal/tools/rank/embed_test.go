package rank

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// topicEmbedder is a stand-in embedding model: one dimension per topic,
// set when a text uses one of the topic's words. It knows words the
// lexicon does not ("illuminate"), as a real model would, and counts the
// texts it is asked to embed.
type topicEmbedder struct {
	mu    sync.Mutex
	texts int
	calls int
}

var topics = [][]string{
	{"light", "lamp", "illuminate", "bright"},
	{"e-mail", "mail", "correspondence"},
	{"flight", "plane", "aviation"},
	{"hotel", "lodging"},
	{"forecast", "weather", "meteorological"},
	{"file"},
	{"switch", "plug"},
}

func (e *topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.texts += len(texts)
	e.calls++
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(topics)+1)
		v[len(topics)] = 0.1 // no text is the zero vector
		low := strings.ToLower(t)
		for k, words := range topics {
			for _, w := range words {
				if strings.Contains(low, w) {
					v[k] = 1
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

func TestEmbeddingsLiftWhatWordsMiss(t *testing.T) {
	docs := smallCatalogue()
	e := &topicEmbedder{}
	em, err := EmbedCatalogue(t.Context(), docs, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if em.Len() != len(docs) {
		t.Fatalf("%d vectors for %d tools", em.Len(), len(docs))
	}
	q := Query{Text: "I need meteorological insight for Bergen"} // no word of the lexicon or the tools
	words := New(docs, nil).Rank(q)[0]
	if words.Score > 0 {
		t.Fatalf("words alone already find %+v; the test needs a request they miss", words)
	}
	vec, _ := e.Embed(t.Context(), []string{q.Text})
	q.Vector = vec[0]
	got := New(docs, &Options{Embeddings: em}).Rank(q)[0]
	if got.Name != "weather__get_forecast" || got.Parts.Embedding <= 0 {
		t.Errorf("with embeddings first = %+v, want weather__get_forecast lifted by its vector", got)
	}
	// A vector of another dimension is ignored, not an error.
	q.Vector = []float32{1, 2}
	if got := New(docs, &Options{Embeddings: em}).Rank(q)[0]; got.Parts.Embedding != 0 {
		t.Errorf("a vector of the wrong dimension scored %+v", got)
	}
}

func TestEmbedCatalogueCache(t *testing.T) {
	dir := t.TempDir()
	docs := smallCatalogue()
	e := &topicEmbedder{}
	opts := &EmbedOptions{Dir: dir, Model: "topics-v1", Batch: 3}
	if _, err := EmbedCatalogue(t.Context(), docs, e, opts); err != nil {
		t.Fatal(err)
	}
	if e.texts != len(docs) || e.calls != 3 {
		t.Fatalf("first build embedded %d texts in %d calls, want %d in 3", e.texts, e.calls, len(docs))
	}

	// Unchanged catalogue, new process: everything from the cache.
	e2 := &topicEmbedder{}
	em, err := EmbedCatalogue(t.Context(), docs, e2, opts)
	if err != nil || e2.texts != 0 || em.Len() != len(docs) {
		t.Fatalf("second build: %d texts embedded, %v vectors, err %v; want 0 and all from the cache", e2.texts, em, err)
	}

	// One tool changed and one removed: only the changed one is embedded,
	// and the removed one leaves the cache.
	changed := append([]Doc(nil), docs[:len(docs)-1]...)
	changed[0].Description = "Switch off a lamp."
	e3 := &topicEmbedder{}
	if _, err := EmbedCatalogue(t.Context(), changed, e3, opts); err != nil || e3.texts != 1 {
		t.Fatalf("after a change %d texts embedded (err %v), want 1", e3.texts, err)
	}
	if got := readCache(EmbedOptions{Dir: dir, Model: "topics-v1", Logger: slog.New(slog.DiscardHandler)}).Len(); got != len(changed) {
		t.Errorf("the cache holds %d vectors, the catalogue %d tools", got, len(changed))
	}

	// Another model never reuses these vectors.
	e4 := &topicEmbedder{}
	if _, err := EmbedCatalogue(t.Context(), docs, e4, &EmbedOptions{Dir: dir, Model: "other"}); err != nil || e4.texts != len(docs) {
		t.Errorf("another model embedded %d texts (err %v), want all %d", e4.texts, err, len(docs))
	}

	// A corrupt cache is rebuilt, with a warning.
	files, _ := filepath.Glob(filepath.Join(dir, "tools-*.json"))
	if len(files) != 2 {
		t.Fatalf("cache files %v, want one per model", files)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	e5 := &topicEmbedder{}
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := EmbedCatalogue(t.Context(), docs, e5, opts); err != nil || e5.texts != len(docs) {
		t.Errorf("a corrupt cache: %d texts embedded (err %v), want all %d", e5.texts, err, len(docs))
	}
	if !strings.Contains(logs.String(), "rebuilding") {
		t.Errorf("no warning about the corrupt cache: %q", logs.String())
	}
}

func TestEmbedCatalogueErrors(t *testing.T) {
	docs := smallCatalogue()
	fail := EmbedderFunc(func(context.Context, []string) ([][]float32, error) { return nil, errors.New("connection refused") })
	if _, err := EmbedCatalogue(t.Context(), docs, fail, nil); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a failing embedder: err = %v", err)
	}
	short := EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		return make([][]float32, len(texts)-1), nil
	})
	if _, err := EmbedCatalogue(t.Context(), docs, short, nil); err == nil {
		t.Error("too few vectors: want an error")
	}
	ragged := EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, 2+i%2)
			out[i][0] = 1
		}
		return out, nil
	})
	if _, err := EmbedCatalogue(t.Context(), docs, ragged, nil); err == nil {
		t.Error("vectors of several dimensions: want an error")
	}
	// An unwritable cache directory still yields the vectors.
	ro := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(ro, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	em, err := EmbedCatalogue(t.Context(), docs, &topicEmbedder{}, &EmbedOptions{Dir: filepath.Join(ro, "sub")})
	if err != nil || em.Len() != len(docs) {
		t.Errorf("an unwritable cache: %v, %v; want the vectors anyway", em, err)
	}
}
