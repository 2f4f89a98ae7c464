package config

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateToolSearch(t *testing.T) {
	tests := []struct {
		name string
		ts   ToolSearch
		want []string
	}{
		{"zero", ToolSearch{}, nil},
		{"off", ToolSearch{MaxTools: -1}, nil},
		{"embeddings", ToolSearch{MaxTools: 20, Embeddings: ToolEmbeddings{Model: "oa", EmbeddingModel: "text-embedding-3-small"}}, nil},
		{"negative", ToolSearch{MaxTools: -2}, []string{"toolSearch.maxTools: must be -1 (offer every tool), 0 (the default, 40) or a positive number of tools, not -2"}},
		{"unknown model", ToolSearch{Embeddings: ToolEmbeddings{Model: "nope", EmbeddingModel: "e"}}, []string{`toolSearch.embeddings.model: names "nope", which is not an entry of models`}},
		{"anthropic", ToolSearch{Embeddings: ToolEmbeddings{Model: "claude", EmbeddingModel: "e"}}, []string{`toolSearch.embeddings.model: names "claude", an anthropic model; anthropic has no embeddings endpoint, use an openai, ollama or gemini entry`}},
		{"no embedding model", ToolSearch{Embeddings: ToolEmbeddings{Model: "oa"}}, []string{"toolSearch.embeddings.embeddingModel: is required with toolSearch.embeddings.model; give the provider's embedding model id, e.g. text-embedding-3-small"}},
		{"no model", ToolSearch{Embeddings: ToolEmbeddings{EmbeddingModel: "e"}}, []string{`toolSearch.embeddings.model: is empty but embeddingModel is set; name the entry of models whose endpoint serves "e"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{ToolSearch: tc.ts, Models: map[string]Model{
				"oa": {Provider: "openai", Model: "gpt"}, "claude": {Provider: ProviderAnthropic, Model: "c"},
			}}
			var p problems
			c.validateToolSearch(&p)
			var got []string
			for _, e := range p {
				var fe *FieldError
				if errors.As(e, &fe) {
					got = append(got, fe.Error())
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
