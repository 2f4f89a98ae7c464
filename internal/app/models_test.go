package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

func TestResolveToolMode(t *testing.T) {
	ollamaText := &llm.ToolReport{Answer: llm.ToolsText, Source: "ollama", Reason: `no "tools" capability`}
	cppNative := &llm.ToolReport{Answer: llm.ToolsNative, Source: "llama.cpp", Reason: "chat template renders tools, per chat_template_caps"}
	silent := &llm.ToolReport{Reason: "the endpoint does not say"}
	tests := []struct {
		name, configured string
		rep              *llm.ToolReport
		err              error
		mode, reason     string
	}{
		{"explicit native is never overridden", "native", ollamaText, nil, "native", "configured"},
		{"explicit text is never overridden", "text", cppNative, nil, "text", "configured"},
		{"auto, endpoint says text", "auto", ollamaText, nil, "text", `ollama: no "tools" capability`},
		{"auto, endpoint says native", "auto", cppNative, nil, "native", "llama.cpp: chat template renders tools, per chat_template_caps"},
		{"empty means auto", "", ollamaText, nil, "text", `ollama: no "tools" capability`},
		{"auto, endpoint silent: today's behaviour", "auto", silent, nil, "native", "the endpoint does not say; native first, text if the server rejects tools"},
		{"auto, provider cannot ask", "auto", nil, nil, "native", "the anthropic API takes tools natively; text if the server rejects them"},
		{
			"auto, asking did not finish", "auto", &llm.ToolReport{}, fmt.Errorf("asking: %w", context.DeadlineExceeded), "native",
			"could not ask the endpoint (asking: context deadline exceeded); native first, text if the server rejects tools",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mode, reason := resolveToolMode(tc.configured, "anthropic", tc.rep, tc.err)
			if mode != tc.mode || reason != tc.reason {
				t.Errorf("resolveToolMode = %q, %q; want %q, %q", mode, reason, tc.mode, tc.reason)
			}
		})
	}
}
