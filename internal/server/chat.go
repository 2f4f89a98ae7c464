package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// chatCompletions serves the OpenAI-compatible API. The request is
// stateless: its messages are the whole history. model names an agent or
// a configured model. Switchboard runs its own tools server-side and
// answers with the final text; the client's own tools (request "tools")
// are offered to the model too, and a call to one of them ends the run and
// is returned as tool_calls with finish_reason "tool_calls". Calls that
// need a person's approval are refused (there is nobody to ask on this
// API); allow such tools in the approval policy to use them here.
func (s *Server) chatCompletions() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var cr chatRequest
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		if err := json.NewDecoder(r.Body).Decode(&cr); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Msg: "request body is too large", Err: err}
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return &Error{Status: http.StatusRequestTimeout, Code: "body_timeout", Msg: "the request body did not arrive in time; send it at once", Err: err}
			}
			return badRequest("request body is not a chat completion request: %v", err)
		}
		req, err := s.chatRun(r.Context(), mustUser(r), &cr)
		if err != nil {
			return err
		}
		c := completion{id: "chatcmpl-" + req.RunID, model: cr.Model, created: s.opts.Now().Unix()}
		if cr.Stream {
			return s.streamChat(w, r, req, &c, cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage)
		}
		for ev, err := range s.runner.Run(r.Context(), req) {
			if err != nil {
				return err
			}
			c.add(ev)
		}
		writeJSON(w, http.StatusOK, c.response())
		return nil
	}
}

// chatRun builds the run of a chat completion request.
func (s *Server) chatRun(ctx context.Context, u User, cr *chatRequest) (*agent.Request, error) {
	if cr.Model == "" {
		return nil, badRequest("model is required: an agent name or a model name from /v1/models")
	}
	if len(cr.Messages) == 0 {
		return nil, badRequest("messages is empty")
	}
	msgs, err := toLLM(cr.Messages)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	req := &agent.Request{User: u.Name, UserID: u.ID, Role: u.role(), Permissions: u.Permissions, Approver: agent.AutoDeny, RunID: store.NewID(), Messages: msgs}
	// Stateless runs have no stored conversation; the id only labels the
	// run's audit records.
	req.ConversationID = "chatcmpl-" + req.RunID
	switch _, err := s.store.Agents.GetAgent(ctx, cr.Model); {
	case err == nil:
		req.Agent = cr.Model
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	case slices.Contains(s.opts.Models(), cr.Model):
		if err := s.chooseModel(u, cr.Model); err != nil {
			return nil, err
		}
		req.Model = cr.Model
	default:
		return nil, errorf(http.StatusNotFound, "model_not_found", "model %q is neither an agent nor a configured model; list them at /v1/models", cr.Model)
	}
	for i, t := range cr.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return nil, badRequest("tools[%d]: only function tools with a name are supported", i)
		}
		req.ClientTools = append(req.ClientTools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: validJSON(t.Function.Parameters)})
	}
	return req, nil
}

// completion gathers a run into one chat completion.
type completion struct {
	id, model string
	created   int64
	text      strings.Builder
	calls     []chatToolCall
	usage     llm.Usage
	stop      agent.StopReason
}

// add takes one event; it returns the text delta and the client tool call
// (if any) the event carried, for streaming.
func (c *completion) add(ev agent.Event) (string, *chatToolCall) {
	switch ev.Kind {
	case agent.EventText:
		c.text.WriteString(ev.Text)
		return ev.Text, nil
	case agent.EventToolStart:
		if ev.Call == nil || ev.Call.Server != agent.ClientServer {
			return "", nil
		}
		tc := chatToolCall{ID: ev.Call.ID, Type: "function"}
		tc.Function.Name, tc.Function.Arguments = ev.Call.Name, string(ev.Call.Arguments)
		idx := len(c.calls)
		tc.Index = &idx
		c.calls = append(c.calls, tc)
		return "", &tc
	case agent.EventDone:
		if ev.Done != nil {
			c.usage, c.stop = ev.Done.Usage, ev.Done.StopReason
		}
	}
	return "", nil
}

func (c *completion) finishReason() *string {
	fr := "stop"
	switch {
	case len(c.calls) > 0:
		fr = "tool_calls"
	case c.stop == agent.StopMaxTokens:
		fr = "length"
	}
	return &fr
}

func (c *completion) chatUsage() *chatUsage {
	return &chatUsage{PromptTokens: c.usage.InputTokens, CompletionTokens: c.usage.OutputTokens, TotalTokens: c.usage.Total()}
}

func (c *completion) response() chatCompletion {
	out := &chatOut{Role: "assistant", ToolCalls: c.calls}
	if t := c.text.String(); t != "" || len(c.calls) == 0 {
		out.Content = &t
	}
	for i := range out.ToolCalls {
		out.ToolCalls[i].Index = nil
	}
	return chatCompletion{
		ID: c.id, Object: "chat.completion", Created: c.created, Model: c.model,
		Choices: []chatChoice{{Message: out, FinishReason: c.finishReason()}},
		Usage:   c.chatUsage(),
	}
}

// listModels lists agents (owned_by "switchboard-agent") and configured
// models (owned_by "switchboard"), each usable as model.
func (s *Server) listModels() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		as, err := s.store.Agents.ListAgents(r.Context())
		if err != nil {
			return err
		}
		data := []modelJSON{}
		for _, a := range as {
			data = append(data, modelJSON{ID: a.Name, Object: "model", Created: a.CreatedAt.Unix(), OwnedBy: "switchboard-agent"})
		}
		for _, m := range s.userModels(mustUser(r)) {
			data = append(data, modelJSON{ID: m, Object: "model", OwnedBy: "switchboard"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
		return nil
	}
}
