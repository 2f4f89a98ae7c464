package app

import (
	"context"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// Bounds of the embedding calls tool ranking makes: the catalogue's when
// it changes (once, cached on disk), and one per request.
const (
	embedCatalogueTimeout = 2 * time.Minute
	embedQueryTimeout     = 10 * time.Second
	// embedRetryAfter is how long a failed catalogue embedding waits
	// before the next run tries again; meanwhile ranking is lexical.
	embedRetryAfter = 5 * time.Minute
)

// toolSearch is what the app adds to the tool retriever: the instructions
// MCP servers gave at initialization, which feed the ranker's server stage,
// and, when toolSearch.embeddings is configured, the catalogue's vectors.
// Without that setting it makes no network call.
type toolSearch struct {
	mu sync.Mutex
	// opts is the last options handed out; the same pointer while nothing
	// changed, so the runtime keeps its index. Guarded by mu, as are the
	// fields below.
	opts   *rank.Options
	instr  map[string]string
	emb    *rank.Embeddings
	embVer uint64 // the registry version emb was made for
	// embFailed is when the last catalogue embedding failed; zero if it
	// did not.
	embFailed time.Time

	// embed is the embeddings endpoint, built once by embedder.
	embedderOnce sync.Once
	embed        llm.Embedder
}

// rankOptions returns the options of the runtime's retrieval index.
func (a *App) rankOptions(ctx context.Context) *rank.Options {
	instr := make(map[string]string)
	for _, st := range a.pool.Status() {
		if st.Instructions != "" {
			instr[st.Name] = st.Instructions
		}
	}
	s := &a.search
	s.mu.Lock()
	defer s.mu.Unlock()
	emb := a.catalogueEmbeddingsLocked(ctx)
	if s.opts != nil && maps.Equal(s.instr, instr) && s.emb == emb {
		return s.opts
	}
	s.instr, s.emb = instr, emb
	s.opts = &rank.Options{Instructions: instr, Embeddings: emb}
	return s.opts
}

// catalogueEmbeddingsLocked returns the catalogue's embeddings, made again
// when the catalogue changed; nil without the setting or while they cannot
// be made. s.mu is held: runs that start meanwhile wait for one embedding
// rather than each making their own.
func (a *App) catalogueEmbeddingsLocked(ctx context.Context) *rank.Embeddings {
	s := &a.search
	e, model := a.embedder()
	if e == nil {
		return nil
	}
	ver := a.registry.Version()
	if s.emb != nil && s.embVer == ver {
		return s.emb
	}
	if !s.embFailed.IsZero() && time.Since(s.embFailed) < embedRetryAfter {
		return s.emb // possibly of the previous catalogue: better than none
	}
	dir := ""
	if a.cfg.Data != "" {
		dir = filepath.Join(a.cfg.Data, "embeddings")
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), embedCatalogueTimeout)
	defer cancel()
	docs := rank.DocsOf(a.registry.List())
	emb, err := rank.EmbedCatalogue(ectx, docs, rank.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		return e.Embed(ctx, model, texts)
	}), &rank.EmbedOptions{Dir: dir, Model: model, Logger: a.logger})
	if err != nil {
		s.embFailed = time.Now()
		a.logger.WarnContext(ctx, "embedding the tool catalogue; ranking tools by words alone", logKeyModel, model, logKeyErr, err)
		return s.emb
	}
	s.emb, s.embVer, s.embFailed = emb, ver, time.Time{}
	return emb
}

// queryVector embeds a request for ranking; nil without the setting or
// when the endpoint fails (the ranking is then lexical).
func (a *App) queryVector(ctx context.Context, text string) []float32 {
	e, model := a.embedder()
	if e == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, embedQueryTimeout)
	defer cancel()
	vs, err := e.Embed(ctx, model, []string{text})
	if err != nil || len(vs) != 1 {
		a.logger.DebugContext(ctx, "embedding a request for tool ranking", logKeyModel, model, logKeyErr, err)
		return nil
	}
	return vs[0]
}

// embedder returns the embeddings endpoint and model of
// toolSearch.embeddings; nil when it is not set or its model has no
// embeddings endpoint.
func (a *App) embedder() (llm.Embedder, string) {
	ec := a.cfg.ToolSearch.Embeddings
	if ec.Model == "" {
		return nil, ""
	}
	a.search.embedderOnce.Do(func() {
		m, ok := a.cfg.Models[ec.Model]
		if !ok {
			return // Validate reports it
		}
		p, err := newProvider(m, llm.HTTPOptions{Logger: a.logger.With(logKeyModel, ec.Model)})
		if err != nil {
			a.logger.Warn("building the embeddings endpoint for tool ranking", logKeyModel, ec.Model, logKeyErr, err)
			return
		}
		a.search.embed, _ = p.(llm.Embedder)
	})
	return a.search.embed, ec.EmbeddingModel
}
