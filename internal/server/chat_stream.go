package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/sse"
)

// streamChat writes a run as chat.completion.chunk events and a final
// "data: [DONE]". The run is cancelled when the client leaves; at
// shutdown the stream ends with finish_reason "stop" and [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, req *agent.Request, c *completion, includeUsage bool) error {
	release, err := s.streams.acquire(mustUser(r))
	if err != nil {
		return err
	}
	defer release()
	ctx := r.Context()
	items, done, stop := s.pump(ctx, req)
	defer stop()
	// Wait for the run's first pair before answering, so that a request
	// the agent refuses gets a proper error status instead of a stream.
	var first runItem
	select {
	case first = <-items:
		if first.err != nil {
			return first.err
		}
	case <-done:
	case <-ctx.Done():
		return nil
	case <-s.closing:
		return errorf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	write := func(data []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
		return sse.WriteEvent(w, "", data)
	}
	chunk := func(delta *chatOut, finish *string, usage *chatUsage) error {
		ch := chatCompletion{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: c.model, Choices: []chatChoice{}, Usage: usage}
		if delta != nil {
			ch.Choices = append(ch.Choices, chatChoice{Delta: delta, FinishReason: finish})
		}
		b, err := json.Marshal(ch)
		if err != nil {
			return err
		}
		return write(b)
	}
	finish := func() error {
		if err := chunk(&chatOut{}, c.finishReason(), nil); err != nil {
			return err
		}
		if includeUsage {
			if err := chunk(nil, nil, c.chatUsage()); err != nil {
				return err
			}
		}
		return write([]byte("[DONE]"))
	}
	empty := ""
	if err := chunk(&chatOut{Role: "assistant", Content: &empty}, nil, nil); err != nil {
		return nil // the client left
	}
	if first.ev.Kind != "" {
		if err := s.chatEvent(first.ev, c, chunk); err != nil {
			return nil
		}
	}
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case it := <-items:
			if it.err != nil {
				f := runFailure(ctx, s.log(ctx).With(logKeyRun, req.RunID), it.err)
				var body errorBody
				body.Error.Code, body.Error.Message = f.Code, f.Message
				b, _ := json.Marshal(body)
				_ = write(b)
				return nil
			}
			if err := s.chatEvent(it.ev, c, chunk); err != nil {
				return nil
			}
		case <-done:
			_ = finish()
			return nil
		case <-ctx.Done():
			return nil
		case <-s.closing:
			_ = finish()
			return nil
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.SSEWriteTimeout))
			if err := sse.WriteComment(w, "keep-alive"); err != nil {
				return nil
			}
		}
	}
}

// chatEvent adds ev to the completion and sends the chunk it makes, if any.
func (s *Server) chatEvent(ev agent.Event, c *completion, chunk func(*chatOut, *string, *chatUsage) error) error {
	text, call := c.add(ev)
	switch {
	case text != "":
		return chunk(&chatOut{Content: &text}, nil, nil)
	case call != nil:
		return chunk(&chatOut{ToolCalls: []chatToolCall{*call}}, nil, nil)
	}
	return nil
}
