package config

// ToolSearch configures how a large tool catalogue is offered to models.
type ToolSearch struct {
	// MaxTools is how many tools a model is offered at once. When an
	// agent may use more, it is offered the tools it loaded earlier in the
	// conversation and the best-ranked of the rest for the request, plus
	// find_tools, with which it searches and loads the others mid-turn.
	// 0 means 40; -1 offers every tool.
	MaxTools int `json:"maxTools"`
	// Embeddings adds the similarity of embedding vectors to the lexical
	// ranking. Off unless Model is set: without it no network call is
	// made for ranking.
	Embeddings ToolEmbeddings `json:"embeddings"`
}

// ToolEmbeddings chooses the embeddings endpoint tool ranking may use. The
// tools' vectors are cached in the data directory ("embeddings") and only
// tools whose text changed are embedded again.
type ToolEmbeddings struct {
	// Model names an entry of models whose provider has an embeddings
	// endpoint (openai, ollama, gemini); its URL and key are used.
	Model string `json:"model,omitempty"`
	// EmbeddingModel is the provider's embedding model id
	// ("text-embedding-3-small", "nomic-embed-text", "text-embedding-004").
	EmbeddingModel string `json:"embeddingModel,omitempty"`
}

func (c *Config) validateToolSearch(p *problems) {
	ts := c.ToolSearch
	if ts.MaxTools < -1 {
		p.add("toolSearch.maxTools", "must be -1 (offer every tool), 0 (the default, 40) or a positive number of tools, not %d", ts.MaxTools)
	}
	e := ts.Embeddings
	switch {
	case e.Model == "" && e.EmbeddingModel != "":
		p.add("toolSearch.embeddings.model", "is empty but embeddingModel is set; name the entry of models whose endpoint serves %q", e.EmbeddingModel)
	case e.Model == "":
	case e.EmbeddingModel == "":
		p.add("toolSearch.embeddings.embeddingModel", "is required with toolSearch.embeddings.model; give the provider's embedding model id, e.g. text-embedding-3-small")
	}
	if e.Model != "" {
		m, ok := c.Models[e.Model]
		switch {
		case !ok:
			p.add("toolSearch.embeddings.model", "names %q, which is not an entry of models", e.Model)
		case m.Provider == ProviderAnthropic:
			p.add("toolSearch.embeddings.model", "names %q, an anthropic model; anthropic has no embeddings endpoint, use an openai, ollama or gemini entry", e.Model)
		}
	}
}
