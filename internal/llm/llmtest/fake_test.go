package llmtest_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFakeProvider(t *testing.T) {
	boom := errors.New("boom")
	call := llmtest.ToolCallScript{ID: "c1", Name: "f", ArgChunks: []string{`{"a":`, `1}`}}
	p := llmtest.NewFakeProvider(
		llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"he", "llo"}, Usage: llm.Usage{InputTokens: 1, OutputTokens: 2}}},
		llmtest.FakeReply{Turn: llmtest.Turn{ToolCalls: []llmtest.ToolCallScript{call}}},
		llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"par"}}, Err: boom},
	)
	req := &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}

	r, err := llm.Collect(p.Stream(t.Context(), req))
	if err != nil || r.Text() != "hello" || r.Usage.OutputTokens != 2 || r.StopReason != llm.StopEndTurn {
		t.Errorf("turn 1 = %+v, %v", r, err)
	}
	r, err = llm.Collect(p.Stream(t.Context(), req))
	want := []llm.ToolCall{{ID: "c1", Name: "f", Arguments: []byte(`{"a":1}`)}}
	if diff := cmp.Diff(want, r.Message.ToolCalls); err != nil || diff != "" {
		t.Errorf("turn 2: %v; tool calls mismatch (-want +got):\n%s", err, diff)
	}
	r, err = llm.Collect(p.Stream(t.Context(), req))
	if !errors.Is(err, boom) || r.Text() != "par" {
		t.Errorf("turn 3 = %q, %v; want partial text and boom", r.Text(), err)
	}
	if _, err := llm.Collect(p.Stream(t.Context(), req)); err == nil {
		t.Error("a request beyond the script succeeded")
	}
	if n := len(p.Requests()); n != 4 {
		t.Errorf("recorded %d requests, want 4", n)
	}
}

func TestFakeProviderBlock(t *testing.T) {
	p := llmtest.NewFakeProvider(llmtest.FakeReply{Turn: llmtest.Turn{Text: []string{"wait"}}, Block: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got error
	for ev, err := range p.Stream(ctx, &llm.Request{}) {
		if err != nil {
			got = err
			break
		}
		if ev.Type == llm.EventTextDelta {
			cancel()
		}
	}
	if !errors.Is(got, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", got)
	}
}

func TestFakeProviderRespond(t *testing.T) {
	p := &llmtest.FakeProvider{Respond: func(ctx context.Context, n int, req *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range llmtest.Events(llmtest.Turn{Text: []string{req.Messages[0].Text()}}) {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}}
	r, err := llm.Generate(t.Context(), p, &llm.Request{Messages: []llm.Message{llm.UserText("echo")}})
	if err != nil || r.Text() != "echo" {
		t.Errorf("Generate = %q, %v; want echo", r.Text(), err)
	}
}

func TestSplit(t *testing.T) {
	b := []byte("abcdef")
	tests := []struct {
		at   []int
		want []string
	}{
		{nil, []string{"abcdef"}},
		{[]int{0}, []string{"abcdef"}},
		{[]int{6}, []string{"abcdef"}},
		{[]int{2, 4}, []string{"ab", "cd", "ef"}},
		{[]int{3, 3, 1}, []string{"abc", "def"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range llmtest.Split(b, tt.at...) {
			got = append(got, string(c))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Split(%v) mismatch (-want +got):\n%s", tt.at, diff)
		}
		if string(llmtest.Join(llmtest.Split(b, tt.at...))) != "abcdef" {
			t.Errorf("Join(Split(%v)) lost bytes", tt.at)
		}
	}
}
