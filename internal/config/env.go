package config

import (
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// applyEnv applies the environment after the file:
//
//   - SWITCHBOARD_DATA replaces data. When neither sets it, data is
//     .switchboard in the working directory, so each project keeps its own
//     database, tokens and tool outputs next to it.
//   - When the file configures no models, the first of these creates a model
//     named "default": OPENAI_API_KEY or OPENAI_BASE_URL (openai, gpt-4o-mini),
//     ANTHROPIC_API_KEY (anthropic, claude-sonnet-4-5), GEMINI_API_KEY or
//     GOOGLE_API_KEY (gemini, gemini-2.5-flash), OLLAMA_HOST (ollama,
//     llama3.2). SWITCHBOARD_MODEL replaces the model id.
//   - A configured model without apiKey takes its provider's variable, but
//     only when its baseURL is empty or the provider's own host, so a key is
//     never sent to a server it was not made for. An openai model without
//     baseURL takes OPENAI_BASE_URL; an ollama one takes OLLAMA_HOST.
//   - An empty defaultModel becomes "default" when such a model exists, else
//     the only model.
func (c *Config) applyEnv(getenv func(string) string, cwd, home string) {
	switch d := getenv("SWITCHBOARD_DATA"); {
	case d != "":
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		c.Data = filepath.Clean(d)
	case c.Data != "":
	default:
		c.Data = filepath.Join(cwd, ".switchboard")
	}

	if e := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); e != "" {
		c.Tracing.Endpoint = e
	}
	if k := getenv(SecretKeyEnv); k != "" {
		c.SecretKey = Secret(k)
	}
	if u := getenv("SWITCHBOARD_DATABASE_URL"); u != "" {
		c.Database.URL = u
	}

	if len(c.Models) == 0 {
		if m, ok := envModel(getenv); ok {
			c.Models = map[string]Model{"default": m}
		}
	}
	for name, m := range c.Models {
		fillFromEnv(&m, getenv)
		c.Models[name] = m
	}
	if c.DefaultModel == "" {
		if _, ok := c.Models["default"]; ok {
			c.DefaultModel = "default"
		} else if len(c.Models) == 1 {
			for name := range c.Models {
				c.DefaultModel = name
			}
		}
	}
}

// envModel returns the model the conventional provider variables describe.
func envModel(getenv func(string) string) (Model, bool) {
	m := defaultModel()
	switch {
	case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "":
		m.Provider, m.Model = ProviderOpenAI, "gpt-4o-mini"
	case getenv("ANTHROPIC_API_KEY") != "":
		m.Provider, m.Model = ProviderAnthropic, "claude-sonnet-4-5"
	case geminiKey(getenv) != "":
		m.Provider, m.Model = ProviderGemini, "gemini-2.5-flash"
	case getenv("OLLAMA_HOST") != "":
		m.Provider, m.Model = ProviderOllama, "llama3.2"
	default:
		return Model{}, false
	}
	if id := getenv("SWITCHBOARD_MODEL"); id != "" {
		m.Model = id
	}
	return m, true
}

func geminiKey(getenv func(string) string) string {
	if k := getenv("GEMINI_API_KEY"); k != "" {
		return k
	}
	return getenv("GOOGLE_API_KEY")
}

// fillFromEnv fills m's empty apiKey and baseURL from its provider's
// variables.
func fillFromEnv(m *Model, getenv func(string) string) {
	var key string
	var hosts []string
	switch m.Provider {
	case ProviderOpenAI:
		key, hosts = getenv("OPENAI_API_KEY"), []string{"api.openai.com"}
		if m.BaseURL == "" {
			if m.APIKey == "" {
				m.APIKey = Secret(key)
			}
			m.BaseURL = getenv("OPENAI_BASE_URL")
			return
		}
	case ProviderAnthropic:
		key, hosts = getenv("ANTHROPIC_API_KEY"), []string{"api.anthropic.com"}
	case ProviderGemini:
		key, hosts = geminiKey(getenv), []string{"generativelanguage.googleapis.com"}
	case ProviderOllama:
		if m.BaseURL == "" {
			m.BaseURL = ollamaURL(getenv("OLLAMA_HOST"))
		}
		return
	default:
		return
	}
	if m.APIKey != "" {
		return
	}
	if m.BaseURL == "" {
		m.APIKey = Secret(key)
		return
	}
	if u, err := url.Parse(m.BaseURL); err == nil && slices.Contains(hosts, strings.ToLower(u.Hostname())) {
		m.APIKey = Secret(key)
	}
}

// ollamaURL turns OLLAMA_HOST, which may lack a scheme and port
// ("0.0.0.0", "gpu:11434"), into a base URL.
func ollamaURL(host string) string {
	if host == "" {
		return ""
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return host
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	return strings.TrimSuffix(u.String(), "/")
}
