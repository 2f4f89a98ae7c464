package llm_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

func seq(evs []llm.Event, err error) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
		if err != nil {
			yield(llm.Event{}, err)
		}
	}
}

func TestCollect(t *testing.T) {
	boom := errors.New("boom")
	call := llm.ToolCall{ID: "1", Name: "f", Arguments: []byte(`{}`)}
	tests := []struct {
		name    string
		evs     []llm.Event
		err     error
		want    *llm.Response
		wantErr error
	}{
		{
			name: "complete",
			evs: []llm.Event{
				{Type: llm.EventReasoningDelta, Text: "hm"},
				{Type: llm.EventTextDelta, Text: "a"},
				{Type: llm.EventTextDelta, Text: "b"},
				{Type: llm.EventToolCall, ToolCall: call},
				{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 1}},
				{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 1, OutputTokens: 2}},
				{Type: llm.EventStop, StopReason: llm.StopToolUse, RawStopReason: "tool_calls"},
			},
			want: &llm.Response{
				Message:   llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("ab")}, ToolCalls: []llm.ToolCall{call}},
				Reasoning: "hm", Usage: llm.Usage{InputTokens: 1, OutputTokens: 2},
				StopReason: llm.StopToolUse, RawStopReason: "tool_calls",
			},
		},
		{
			name:    "error keeps the partial answer",
			evs:     []llm.Event{{Type: llm.EventTextDelta, Text: "par"}},
			err:     boom,
			want:    &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("par")}}},
			wantErr: boom,
		},
		{
			name:    "no stop event",
			evs:     []llm.Event{{Type: llm.EventTextDelta, Text: "x"}},
			want:    &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("x")}}},
			wantErr: llm.ErrIncomplete,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.Collect(seq(tt.evs, tt.err))
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Collect mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOnce(t *testing.T) {
	s := llm.Once(seq([]llm.Event{{Type: llm.EventStop}}, nil))
	if _, err := llm.Collect(s); err != nil {
		t.Fatalf("first range: %v", err)
	}
	if _, err := llm.Collect(s); !errors.Is(err, llm.ErrStreamReused) {
		t.Errorf("second range: error = %v, want ErrStreamReused", err)
	}
}

type streamer struct{}

func (streamer) Stream(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
	return seq([]llm.Event{{Type: llm.EventTextDelta, Text: "streamed"}, {Type: llm.EventStop}}, nil)
}

type generator struct{ streamer }

func (generator) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.AssistantText("generated")}, nil
}

func TestGenerate(t *testing.T) {
	for _, tt := range []struct {
		p    llm.Provider
		want string
	}{{streamer{}, "streamed"}, {generator{}, "generated"}} {
		r, err := llm.Generate(t.Context(), tt.p, &llm.Request{})
		if err != nil || r.Text() != tt.want {
			t.Errorf("Generate(%T) = %q, %v; want %q", tt.p, r.Text(), err, tt.want)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *llm.Error
		want string
	}{
		{
			&llm.Error{Provider: "openai", Kind: llm.KindRateLimit, Status: 429, Code: "rate_limit_exceeded", Message: "slow down"},
			"openai: rate_limit (429 rate_limit_exceeded): slow down",
		},
		{
			&llm.Error{Provider: "anthropic", Kind: llm.KindTimeout, Code: "idle", Message: "no data"},
			"anthropic: timeout (idle): no data",
		},
		{
			&llm.Error{Provider: "p", Kind: llm.KindInvalidRequest, Status: 400, Message: "x does not support tools", Err: llm.ErrToolsUnsupported},
			"p: invalid_request (400): x does not support tools: model does not support tools",
		},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestSystemPrompt(t *testing.T) {
	r := &llm.Request{System: "a", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("b")}},
		llm.UserText("u"),
		{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("c")}},
	}}
	if got := r.SystemPrompt(); got != "a\n\nb\n\nc" {
		t.Errorf("SystemPrompt() = %q", got)
	}
}
