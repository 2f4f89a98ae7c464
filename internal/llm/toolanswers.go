package llm

import (
	"encoding/json"
	"slices"
	"strings"
)

// The readers below turn what a server says about a model into a
// [ToolReport]. They live here rather than in one adapter because an
// OpenAI-compatible base URL may be any of these servers, and the Ollama
// adapter reads /api/show too. Each returns ok false when the body is not
// that server's answer at all, so the caller can tell "this server said
// nothing about tools" from "this is not that server".

// Sources named in the reports.
const (
	SourceOllama   = "ollama"
	SourceLlamaCpp = "llama.cpp"
	SourceLMStudio = "lm studio"
	SourceList     = "model list"
)

// ReadOllamaShow reads Ollama's POST /api/show answer. Since Ollama 0.6.4
// (April 2025) it lists "capabilities" ("completion", "tools", "vision",
// "thinking", "embedding"...), omitted when empty; older servers are judged
// by the Go template, which ranges over .Tools when the model takes tools.
func ReadOllamaShow(b []byte) (ToolReport, bool) {
	var s struct {
		Capabilities []string        `json:"capabilities"`
		Template     string          `json:"template"`
		ModelInfo    json.RawMessage `json:"model_info"`
		Details      json.RawMessage `json:"details"`
	}
	if json.Unmarshal(b, &s) != nil {
		return ToolReport{}, false
	}
	// llama.cpp's server once answered /api/show for clients written for
	// Ollama, with model_info as a string and capabilities ["completion"]
	// whatever the template: not Ollama, and not to be believed.
	if len(s.ModelInfo) > 0 && s.ModelInfo[0] == '"' {
		return ToolReport{}, false
	}
	if s.Capabilities == nil && s.Template == "" && s.ModelInfo == nil && s.Details == nil {
		return ToolReport{}, false
	}
	r := ToolReport{Source: SourceOllama}
	switch {
	case s.Capabilities != nil && slices.Contains(s.Capabilities, "tools"):
		r.Answer, r.Reason = ToolsNative, `"tools" capability`
	case s.Capabilities != nil:
		r.Answer, r.Reason = ToolsText, `no "tools" capability`
	case strings.Contains(s.Template, ".Tools"):
		r.Answer, r.Reason = ToolsNative, "template uses .Tools; server predates capabilities"
	case s.Template != "":
		r.Answer, r.Reason = ToolsText, "template has no .Tools; server predates capabilities"
	default:
		r.Reason = "model details have neither capabilities nor a template"
	}
	return r, true
}

// ReadLlamaCppProps reads llama.cpp server's GET /props answer (see its
// tools/server/README.md and common/jinja/caps.cpp). Newer builds report
// chat_template_caps, found by running the Jinja template on a sample
// conversation: supports_tools is false when the template never renders
// the tools. Older ones give only chat_template and, with --jinja,
// chat_template_tool_use when the model has a separate template for tools.
func ReadLlamaCppProps(b []byte) (ToolReport, bool) {
	var p struct {
		ChatTemplate *string                    `json:"chat_template"`
		Caps         map[string]json.RawMessage `json:"chat_template_caps"`
		ToolUse      string                     `json:"chat_template_tool_use"`
		Defaults     json.RawMessage            `json:"default_generation_settings"`
	}
	if json.Unmarshal(b, &p) != nil || (p.ChatTemplate == nil && p.Caps == nil && p.Defaults == nil) {
		return ToolReport{}, false
	}
	r := ToolReport{Source: SourceLlamaCpp}
	var tools bool
	switch {
	case json.Unmarshal(p.Caps["supports_tools"], &tools) == nil && tools:
		r.Answer, r.Reason = ToolsNative, "chat template renders tools, per chat_template_caps"
	case p.Caps["supports_tools"] != nil && json.Unmarshal(p.Caps["supports_tools"], &tools) == nil:
		r.Answer, r.Reason = ToolsText, "chat template has no tool section, per chat_template_caps"
	case p.ToolUse != "":
		r.Answer, r.Reason = ToolsNative, "the model has a tool-use chat template"
	case p.ChatTemplate == nil || *p.ChatTemplate == "":
		r.Reason = "/props shows no chat template"
	case templateMentionsTools(*p.ChatTemplate):
		r.Answer, r.Reason = ToolsNative, "chat template renders tools"
	default:
		r.Answer, r.Reason = ToolsText, "chat template has no tool section"
	}
	return r, true
}

// templateMentionsTools reports whether a Jinja chat template refers to the
// tools or tool calls of the conversation; one that never does cannot show
// the model its tools.
func templateMentionsTools(t string) bool {
	return strings.Contains(t, "tools") || strings.Contains(t, "tool_call")
}

// ReadLMStudioModels reads LM Studio's GET /api/v1/models answer (0.4 and
// later): {"models": [{"key", "loaded_instances": [{"id"}], "capabilities":
// {"trained_for_tool_use"}}]}. LM Studio takes tools for every model, but
// one not trained for them gets its generic format, where the text
// protocol does better.
func ReadLMStudioModels(b []byte, model string) (ToolReport, bool) {
	var l struct {
		Models []struct {
			Key       string `json:"key"`
			Instances []struct {
				ID string `json:"id"`
			} `json:"loaded_instances"`
			Caps *struct {
				ToolUse *bool `json:"trained_for_tool_use"`
			} `json:"capabilities"`
		} `json:"models"`
	}
	if json.Unmarshal(b, &l) != nil || l.Models == nil {
		return ToolReport{}, false
	}
	r := ToolReport{Source: SourceLMStudio, Reason: "model " + quote(model) + " is not listed"}
	for _, m := range l.Models {
		match := m.Key == model
		for _, in := range m.Instances {
			match = match || in.ID == model
		}
		if !match {
			continue
		}
		switch {
		case m.Caps == nil || m.Caps.ToolUse == nil:
			r.Reason = "the model's capabilities do not mention tool use"
		case *m.Caps.ToolUse:
			r.Answer, r.Reason = ToolsNative, "trained_for_tool_use"
		default:
			r.Answer, r.Reason = ToolsText, "not trained_for_tool_use"
		}
		break
	}
	return r, true
}

// ReadModelList reads an OpenAI-shaped model list ({"data": [{"id"}]}) for
// the fields some servers add: OpenRouter's "supported_parameters" (with
// "tools" when the model takes them), LM Studio's /api/v0/models
// "capabilities" (with "tool_use"), Mistral's capabilities object (with
// "function_calling"). vLLM's and OpenAI's own lists say nothing about
// tools: an unknown report.
func ReadModelList(b []byte, model string) (ToolReport, bool) {
	var l struct {
		Data []struct {
			ID     string          `json:"id"`
			Params []string        `json:"supported_parameters"`
			Caps   json.RawMessage `json:"capabilities"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &l) != nil || l.Data == nil {
		return ToolReport{}, false
	}
	r := ToolReport{Source: SourceList, Reason: "model " + quote(model) + " is not listed"}
	for _, m := range l.Data {
		if m.ID != model && m.ID != model+":latest" {
			continue
		}
		r.Reason = "the entry does not mention tools"
		var names []string
		var flags map[string]json.RawMessage
		switch {
		case m.Params != nil && slices.Contains(m.Params, "tools"):
			r.Answer, r.Reason = ToolsNative, `supported_parameters has "tools"`
		case m.Params != nil:
			r.Answer, r.Reason = ToolsText, `supported_parameters has no "tools"`
		case json.Unmarshal(m.Caps, &names) == nil && names != nil:
			if slices.Contains(names, "tool_use") || slices.Contains(names, "tools") {
				r.Answer, r.Reason = ToolsNative, `capabilities has "tool_use"`
			} else {
				r.Answer, r.Reason = ToolsText, `capabilities has no "tool_use"`
			}
		case json.Unmarshal(m.Caps, &flags) == nil && flags["function_calling"] != nil:
			var fc bool
			if json.Unmarshal(flags["function_calling"], &fc) == nil {
				r.Answer, r.Reason = ToolsText, "capabilities.function_calling is false"
				if fc {
					r.Answer, r.Reason = ToolsNative, "capabilities.function_calling"
				}
			}
		}
		break
	}
	return r, true
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
