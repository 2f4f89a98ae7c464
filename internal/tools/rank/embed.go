package rank

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Embedder turns texts into vectors, one per text, in order, all of one
// dimension: a provider's embeddings endpoint with its model chosen
// (llm.Embedder is one, bound to a model by the caller).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderFunc adapts a function to [Embedder].
type EmbedderFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embed calls f.
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// EmbedOptions configure [EmbedCatalogue]. A nil or zero value means no
// cache and batches of 64.
type EmbedOptions struct {
	// Dir holds the cache, one file per model (the data directory's
	// "embeddings" folder, say). "" keeps no cache.
	Dir string
	// Model names the embedding model: vectors of one model never serve
	// another.
	Model string
	// Batch is the most texts sent in one Embed call; zero means 64.
	Batch int
	// Logger receives a warning when the cache cannot be read or written;
	// the vectors are still returned. Nil discards it.
	Logger *slog.Logger
}

// Embeddings are unit-length vectors of tools, found by the text each was
// made from, so they serve any catalogue holding those tools, in any
// order. Give them to [New] in [Options].Embeddings. Immutable.
type Embeddings struct {
	dim  int
	vecs map[string][]float32 // by textKey of the tool's text
}

// Len returns the number of tools with a vector.
func (em *Embeddings) Len() int { return len(em.vecs) }

// EmbedCatalogue returns the embeddings of docs. The vectors of tools
// whose text is unchanged come from the cache; the others from e, in
// batches, after which the cache is rewritten to hold exactly this
// catalogue's vectors, so a changed or removed tool leaves it. A cache that
// cannot be read (missing, corrupt, another model's) is rebuilt. It returns
// an error only when e fails or answers vectors that do not fit.
func EmbedCatalogue(ctx context.Context, docs []Doc, e Embedder, opts *EmbedOptions) (*Embeddings, error) {
	var o EmbedOptions
	if opts != nil {
		o = *opts
	}
	if o.Batch <= 0 {
		o.Batch = 64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cached := readCache(o)
	em := &Embeddings{vecs: make(map[string][]float32, len(docs))}
	var missing []string // texts, in doc order, without duplicates
	seen := make(map[string]bool)
	for _, d := range docs {
		text := embedText(d)
		key := textKey(text)
		if v, ok := cached.vecs[key]; ok && (em.dim == 0 || len(v) == em.dim) {
			em.vecs[key], em.dim = v, len(v)
			continue
		}
		if !seen[key] {
			seen[key] = true
			missing = append(missing, text)
		}
	}
	for start := 0; start < len(missing); start += o.Batch {
		batch := missing[start:min(start+o.Batch, len(missing))]
		vecs, err := e.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embedding %d tool descriptions: %w", len(batch), err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embedding %d tool descriptions: got %d vectors", len(batch), len(vecs))
		}
		for i, v := range vecs {
			if em.dim == 0 {
				em.dim = len(v)
			}
			if len(v) == 0 || len(v) != em.dim {
				return nil, fmt.Errorf("embedding tool descriptions: a vector of %d dimensions among vectors of %d", len(v), em.dim)
			}
			em.vecs[textKey(batch[i])] = normalize(v)
		}
	}
	if len(missing) > 0 || len(cached.vecs) != len(em.vecs) {
		if err := writeCache(o, em); err != nil {
			o.Logger.Warn("tool embeddings not cached", logKeyErr, err)
		}
	}
	return em, nil
}

// embedText is what is embedded of a tool: its names, description and
// parameter names, the words a request for it would share in meaning.
func embedText(d Doc) string {
	var b strings.Builder
	if d.Server != "" {
		b.WriteString(d.Server + " ")
	}
	b.WriteString(strings.ReplaceAll(d.Tool, "_", " "))
	if d.Title != "" {
		b.WriteString(": " + d.Title)
	}
	b.WriteString(". " + d.Description)
	if params := readSchema(d.InputSchema).params; len(params) > 0 {
		b.WriteString(" Parameters: " + strings.Join(params, ", ") + ".")
	}
	return b.String()
}

func textKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:16])
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// cacheFile is the cache's format: the model, and each vector as base64
// of little-endian float32s under the key of its text.
type cacheFile struct {
	Model   string            `json:"model"`
	Vectors map[string]string `json:"vectors"`
}

func cachePath(o EmbedOptions) string {
	sum := sha256.Sum256([]byte(o.Model))
	return filepath.Join(o.Dir, "tools-"+hex.EncodeToString(sum[:8])+".json")
}

// readCache returns the cached vectors of o.Model; an empty set when there
// is no usable cache.
func readCache(o EmbedOptions) *Embeddings {
	em := &Embeddings{vecs: make(map[string][]float32)}
	if o.Dir == "" {
		return em
	}
	b, err := os.ReadFile(cachePath(o))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			o.Logger.Warn("tool embeddings cache unreadable; rebuilding it", logKeyErr, err)
		}
		return em
	}
	var f cacheFile
	if err := json.Unmarshal(b, &f); err != nil || f.Model != o.Model {
		o.Logger.Warn("tool embeddings cache not of this model or corrupt; rebuilding it", logKeyPath, cachePath(o))
		return em
	}
	for k, s := range f.Vectors {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(raw) == 0 || len(raw)%4 != 0 {
			continue
		}
		v := make([]float32, len(raw)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		em.vecs[k] = v
	}
	return em
}

// writeCache replaces the cache file atomically: a reader sees the old
// file or the new one, never half of one.
func writeCache(o EmbedOptions, em *Embeddings) error {
	if o.Dir == "" {
		return nil
	}
	f := cacheFile{Model: o.Model, Vectors: make(map[string]string, len(em.vecs))}
	for k, v := range em.vecs {
		raw := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
		}
		f.Vectors[k] = base64.StdEncoding.EncodeToString(raw)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encoding tool embeddings: %w", err)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("creating embeddings cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(o.Dir, ".tools-*.json")
	if err != nil {
		return fmt.Errorf("writing tool embeddings: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing tool embeddings: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing tool embeddings: %w", err)
	}
	if err := os.Rename(tmp.Name(), cachePath(o)); err != nil {
		return fmt.Errorf("writing tool embeddings: %w", err)
	}
	return nil
}
