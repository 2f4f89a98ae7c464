package agent_test

import (
	"errors"
	"strings"
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

// TestContextNoteWhenHistoryIsCut checks a turn whose history does not fit
// the model's window tells the person what was left out, and that the
// model request really is shorter.
func TestContextNoteWhenHistoryIsCut(t *testing.T) {
	fake := llmtest.NewFakeProvider(say("first answer, at some length to fill the window"), say("second"))
	e := newEnv(t, fake, nil)
	e.resolve = func(string) (agent.Model, error) {
		return agent.Model{Name: "small", ID: "small", Provider: fake, ContextWindow: 20}, nil
	}
	if evs := e.mustRun(t, &agent.Request{Message: "a first question"}); len(find(evs, agent.EventContext)) != 0 {
		t.Errorf("the first turn fits, yet got %+v", find(evs, agent.EventContext))
	}
	evs := e.mustRun(t, &agent.Request{Message: "second"})
	notes := find(evs, agent.EventContext)
	if len(notes) != 1 || !strings.Contains(notes[0].Text, "2 older message(s) were left out") {
		t.Fatalf("context events = %+v, want one saying 2 messages were left out", notes)
	}
	if reqs := fake.Requests(); len(reqs[1].Messages) != 1 {
		t.Errorf("second request has %d messages, want only the new one", len(reqs[1].Messages))
	}
}
