package agent_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

// TestAttachmentsReachTheModel checks an image a person attaches is part
// of their stored message: the model sees it in this turn and the next.
func TestAttachmentsReachTheModel(t *testing.T) {
	fake := llmtest.NewFakeProvider(say("a red dot"), say("still a red dot"))
	e := newEnv(t, fake, nil)
	img := llm.ImagePart("image/png", []byte{0x89, 'P', 'N', 'G'})
	e.mustRun(t, &agent.Request{Message: "what is this?", Attachments: []llm.Part{img}})
	e.mustRun(t, &agent.Request{Message: "and now?"})

	want := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("what is this?"), img}}
	reqs := fake.Requests()
	if diff := cmp.Diff(want, reqs[0].Messages[len(reqs[0].Messages)-1]); diff != "" {
		t.Errorf("first request's user message mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, reqs[1].Messages[0]); diff != "" {
		t.Errorf("second request's history mismatch (-want +got):\n%s", diff)
	}
}

// TestAttachmentsNeedAStatefulRun checks attachments beside Messages are
// refused rather than dropped.
func TestAttachmentsNeedAStatefulRun(t *testing.T) {
	e := newEnv(t, llmtest.NewFakeProvider(say("x")), nil)
	_, err := e.run(t, &agent.Request{
		Messages:    []llm.Message{llm.UserText("hi")},
		Attachments: []llm.Part{llm.ImagePart("image/png", []byte{1})},
	})
	if !errors.Is(err, agent.ErrInvalidRequest) {
		t.Errorf("error = %v, want ErrInvalidRequest", err)
	}
}
