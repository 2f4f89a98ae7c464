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
	ctx := r.Context()
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
	items, done, stop := s.pump(ctx, req)
	defer stop()
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case it := <-items:
			if it.err != nil {
				s.log(ctx).ErrorContext(ctx, "chat run failed", logKeyRun, req.RunID, logKeyErr, it.err)
				b, _ := json.Marshal(errorBody{Error: struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				}{"run_failed", "the run failed; the server log has the cause"}})
				_ = write(b)
				return nil
			}
			text, call := c.add(it.ev)
			var err error
			switch {
			case text != "":
				err = chunk(&chatOut{Content: &text}, nil, nil)
			case call != nil:
				err = chunk(&chatOut{ToolCalls: []chatToolCall{*call}}, nil, nil)
			}
			if err != nil {
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
