package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// owner is the store's User of conversations the user owns. The anonymous
// local user owns the single-user conversations (User ""), which the
// terminal chat creates too.
func owner(u User) string {
	if u.Anonymous {
		return ""
	}
	return u.Name
}

func mustUser(r *http.Request) User {
	u, _ := UserFrom(r.Context()) // wrap put it there for every auth route
	return u
}

// conversation returns the conversation id when the user owns it; another
// user's conversation is "not found", so ids cannot be probed.
func (s *Server) conversation(ctx context.Context, u User, id string) (store.Conversation, error) {
	c, err := s.store.Conversations.GetConversation(ctx, id)
	if err != nil {
		return store.Conversation{}, err
	}
	if c.User != owner(u) {
		return store.Conversation{}, errorf(http.StatusNotFound, "not_found", "no conversation %q", id)
	}
	return c, nil
}

func (s *Server) listConversations() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		limit := 0
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return badRequest("limit %q is not a non-negative integer", v)
			}
			limit = n
		}
		page, next, err := s.store.Conversations.ListConversations(r.Context(), store.ConversationFilter{
			User: owner(mustUser(r)), Limit: limit, Cursor: q.Get("cursor"),
		})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list[conversationJSON]{Items: mapSlice(page, toConversation), Next: next})
		return nil
	}
}

type createConversationBody struct {
	Title string `json:"title"`
	Agent string `json:"agent"`
}

func (s *Server) createConversation() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body createConversationBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		if body.Agent != "" {
			if _, err := s.store.Agents.GetAgent(r.Context(), body.Agent); err != nil {
				return notFoundAs(err, "no agent %q; list them at /api/v1/agents", body.Agent)
			}
		}
		c, err := s.store.Conversations.CreateConversation(r.Context(), store.Conversation{
			Title: body.Title, Agent: body.Agent, User: owner(mustUser(r)),
		})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, toConversation(c))
		return nil
	}
}

func (s *Server) getConversation() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.conversation(r.Context(), mustUser(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		msgs, err := s.store.Conversations.ListMessages(r.Context(), c.ID, store.MessageFilter{})
		if err != nil {
			return err
		}
		out := toConversation(c)
		out.Messages = mapSlice(msgs, toMessage)
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

func (s *Server) deleteConversation() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.conversation(r.Context(), mustUser(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		if err := s.store.Conversations.DeleteConversation(r.Context(), c.ID); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

type postMessageBody struct {
	Message string `json:"message"`
	// Agent overrides the conversation's agent for this turn.
	Agent string `json:"agent"`
	Model string `json:"model"`
	// Images are attached to the message and go to the model with it.
	Images []imageJSON `json:"images"`
	// Prompt runs an MCP server's prompt as the message (Message empty).
	Prompt *promptRunJSON `json:"prompt"`
	// Resources are MCP resources (switchboard:// URIs) read now and
	// attached to the message.
	Resources []string `json:"resources"`
	// Uploads are the IDs of files uploaded to the conversation that the
	// message attaches: the model is told of each (and sees images).
	Uploads []string `json:"uploads"`
}

// postMessage runs the agent on the user's message and streams the run.
func (s *Server) postMessage() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			return errorf(http.StatusNotAcceptable, "not_acceptable", "this route streams the run: send Accept: text/event-stream")
		}
		u := mustUser(r)
		c, err := s.conversation(r.Context(), u, r.PathValue("id"))
		if err != nil {
			return err
		}
		var body postMessageBody
		if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
			return err
		}
		// A model the user may not use is refused before anything runs.
		if err := s.chooseModel(u, body.Model); err != nil {
			return err
		}
		images, err := imageParts(body.Images)
		if err != nil {
			return err
		}
		uc := u.caller()
		var prelude []llm.Message
		var promptParts []llm.Part
		switch {
		case body.Prompt != nil && strings.TrimSpace(body.Message) != "":
			return badRequest("send either a message or a prompt to run, not both")
		case body.Prompt != nil:
			if body.Message, prelude, promptParts, err = s.promptTurn(r.Context(), &uc, body.Prompt); err != nil {
				return err
			}
		case strings.TrimSpace(body.Message) == "":
			return badRequest("message is empty; send {\"message\": \"...\"}")
		}
		resources, err := s.resourceParts(r.Context(), &uc, body.Resources)
		if err != nil {
			return err
		}
		images = append(append(promptParts, images...), resources...)
		attached, err := s.uploadParts(r.Context(), u, c.ID, body.Uploads)
		if err != nil {
			return err
		}
		images = append(images, attached...)
		name := c.Agent
		if body.Agent != "" {
			if _, err := s.store.Agents.GetAgent(r.Context(), body.Agent); err != nil {
				return notFoundAs(err, "no agent %q; list them at /api/v1/agents", body.Agent)
			}
			name = body.Agent
		}
		req := &agent.Request{
			ConversationID: c.ID, User: u.Name, UserID: u.ID, Role: u.role(), Permissions: u.Permissions, Agent: name, Message: body.Message,
			Attachments: images, Prelude: prelude, Model: body.Model, RunID: store.NewID(),
		}
		return s.stream(w, r, req)
	}
}

// notFoundAs turns a not-found error into a 404 with msg, keeping others.
func notFoundAs(err error, format string, args ...any) error {
	if e := classify(err); e.Status == http.StatusNotFound {
		ne := errorf(http.StatusNotFound, "not_found", format, args...)
		ne.Err = err
		return ne
	}
	return err
}
