package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnvDefaultModel(t *testing.T) {
	model := func(provider, id, baseURL, key string) map[string]Model {
		m := defaultModel()
		m.Provider, m.Model, m.BaseURL, m.APIKey = provider, id, baseURL, Secret(key)
		return map[string]Model{"default": m}
	}
	tests := []struct {
		name string
		env  envMap
		want map[string]Model
	}{
		{name: "nothing set", env: envMap{}},
		{
			name: "openai",
			env:  envMap{"OPENAI_API_KEY": "sk-1"},
			want: model(ProviderOpenAI, "gpt-4o-mini", "", "sk-1"),
		},
		{
			name: "openai with base url and model",
			env:  envMap{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://localhost:8000/v1", "SWITCHBOARD_MODEL": "qwen2.5"},
			want: model(ProviderOpenAI, "qwen2.5", "http://localhost:8000/v1", "sk-1"),
		},
		{
			name: "openai-compatible server without key",
			env:  envMap{"OPENAI_BASE_URL": "http://localhost:8000/v1"},
			want: model(ProviderOpenAI, "gpt-4o-mini", "http://localhost:8000/v1", ""),
		},
		{
			name: "anthropic",
			env:  envMap{"ANTHROPIC_API_KEY": "sk-ant"},
			want: model(ProviderAnthropic, "claude-sonnet-4-5", "", "sk-ant"),
		},
		{
			name: "gemini",
			env:  envMap{"GEMINI_API_KEY": "g-1"},
			want: model(ProviderGemini, "gemini-2.5-flash", "", "g-1"),
		},
		{
			name: "google api key",
			env:  envMap{"GOOGLE_API_KEY": "g-2"},
			want: model(ProviderGemini, "gemini-2.5-flash", "", "g-2"),
		},
		{
			name: "ollama host without scheme and port",
			env:  envMap{"OLLAMA_HOST": "gpu-box"},
			want: model(ProviderOllama, "llama3.2", "http://gpu-box:11434", ""),
		},
		{
			name: "ollama host with model",
			env:  envMap{"OLLAMA_HOST": "http://127.0.0.1:11434/", "SWITCHBOARD_MODEL": "qwen3"},
			want: model(ProviderOllama, "qwen3", "http://127.0.0.1:11434", ""),
		},
		{
			name: "precedence: openai, anthropic, gemini, ollama",
			env:  envMap{"OLLAMA_HOST": "h", "GEMINI_API_KEY": "g", "ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"},
			want: model(ProviderOpenAI, "gpt-4o-mini", "", "o"),
		},
		{
			name: "precedence: anthropic before gemini and ollama",
			env:  envMap{"OLLAMA_HOST": "h", "GEMINI_API_KEY": "g", "ANTHROPIC_API_KEY": "a"},
			want: model(ProviderAnthropic, "claude-sonnet-4-5", "", "a"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, "switchboard.yaml", "{}", tt.env)
			if diff := cmp.Diff(tt.want, c.Models, cmpConfig); diff != "" {
				t.Errorf("models mismatch (-want +got):\n%s", diff)
			}
			wantDefault := ""
			if tt.want != nil {
				wantDefault = "default"
			}
			if c.DefaultModel != wantDefault {
				t.Errorf("DefaultModel = %q, want %q", c.DefaultModel, wantDefault)
			}
		})
	}
}

func TestEnvDoesNotAddModelsToAFileWithModels(t *testing.T) {
	c := mustLoad(t, "switchboard.yaml", "models: {mine: {provider: anthropic, model: claude-opus-4}}\n",
		envMap{"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-ant"})
	if len(c.Models) != 1 || c.DefaultModel != "mine" {
		t.Fatalf("models = %v, defaultModel = %q; want only mine", c.Models, c.DefaultModel)
	}
	if got := c.Models["mine"].APIKey.Value(); got != "sk-ant" {
		t.Errorf("apiKey = %q, want it from ANTHROPIC_API_KEY", got)
	}
}

func TestEnvFillsAPIKeysOnlyForTheProvidersHost(t *testing.T) {
	env := envMap{
		"OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": "https://proxy.example/v1",
		"ANTHROPIC_API_KEY": "sk-ant", "GEMINI_API_KEY": "g-key", "OLLAMA_HOST": "127.0.0.1:11434",
	}
	c := mustLoad(t, "switchboard.yaml", `
defaultModel: a
models:
  a: {provider: openai, model: m}
  b: {provider: openai, model: m, baseURL: "https://api.openai.com/v1"}
  c: {provider: openai, model: m, baseURL: "http://localhost:11434/v1"}
  d: {provider: openai, model: m, apiKey: mine}
  e: {provider: anthropic, model: m}
  f: {provider: anthropic, model: m, baseURL: "https://gateway.example"}
  g: {provider: gemini, model: m, baseURL: "https://generativelanguage.googleapis.com"}
  h: {provider: ollama, model: m}
  i: {provider: ollama, model: m, baseURL: "http://other:11434"}
`, env)
	type kb struct{ Key, BaseURL string }
	got := map[string]kb{}
	for name, m := range c.Models {
		got[name] = kb{m.APIKey.Value(), m.BaseURL}
	}
	want := map[string]kb{
		"a": {"sk-openai", "https://proxy.example/v1"},
		"b": {"sk-openai", "https://api.openai.com/v1"},
		"c": {"", "http://localhost:11434/v1"},
		"d": {"mine", "https://proxy.example/v1"},
		"e": {"sk-ant", ""},
		"f": {"", "https://gateway.example"},
		"g": {"g-key", "https://generativelanguage.googleapis.com"},
		"h": {"", "http://127.0.0.1:11434"},
		"i": {"", "http://other:11434"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys and base URLs mismatch (-want +got):\n%s", diff)
	}
}
