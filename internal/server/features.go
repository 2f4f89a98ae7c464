package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The MCP servers' prompts and resources on the REST API, for the web UI
// and the terminal chat. Who may see, get, read and complete what is the
// gate's (gate.Offerings), which /mcp uses too; these handlers only speak
// JSON.

// featureAgent labels the audit records of gets and reads made through
// the REST API (and the chat, which attaches through it).
const featureAgent = "api"

type promptJSON struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	Arguments   []promptArgumentJSON `json:"arguments"`
}

type promptArgumentJSON struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type promptMessageJSON struct {
	Role    string        `json:"role"`
	Content tools.Content `json:"content"`
}

type resourceJSON struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

type templateJSON struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

type resourceContentsJSON struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// offerings is the gate's view of the MCP servers' prompts and resources,
// or a 404 when the server was built without them.
func (s *Server) offerings() (*gate.Offerings, error) {
	if s.offers == nil {
		return nil, errorf(http.StatusNotFound, "not_found", "this server offers no prompts or resources (no MCP servers)")
	}
	return s.offers, nil
}

// featureRequest is what the get, read and complete handlers share: the
// offerings, the request's decoded body and the caller it acts for.
func featureRequest[B any](s *Server, w http.ResponseWriter, r *http.Request) (*gate.Offerings, gate.Caller, B, error) {
	var body B
	o, err := s.offerings()
	if err != nil {
		return nil, gate.Caller{}, body, err
	}
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &body); err != nil {
		return nil, gate.Caller{}, body, err
	}
	u := mustUser(r)
	return o, u.caller(), body, nil
}

// listPrompts lists the prompts the user may get, named server__prompt.
func (s *Server) listPrompts() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := s.offerings()
		if err != nil {
			return err
		}
		u := mustUser(r)
		c := u.caller()
		out := mapSlice(o.Prompts(r.Context(), &c), func(p tools.Prompt) promptJSON {
			return promptJSON{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: mapSlice(p.Arguments, func(a tools.PromptArgument) promptArgumentJSON {
				return promptArgumentJSON(a)
			})}
		})
		writeJSON(w, http.StatusOK, list[promptJSON]{Items: out})
		return nil
	}
}

type getPromptBody struct {
	Arguments map[string]string `json:"arguments"`
}

// getPrompt expands one prompt with the arguments given.
func (s *Server) getPrompt() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, c, body, err := featureRequest[getPromptBody](s, w, r)
		if err != nil {
			return err
		}
		res, err := o.GetPrompt(r.Context(), &c, featureAgent, r.PathValue("name"), body.Arguments)
		if err != nil {
			return featureHTTPError(err)
		}
		writeJSON(w, http.StatusOK, struct {
			Description string              `json:"description,omitempty"`
			Messages    []promptMessageJSON `json:"messages"`
		}{res.Description, mapSlice(res.Messages, func(m tools.PromptMessage) promptMessageJSON { return promptMessageJSON(m) })})
		return nil
	}
}

// listResources lists the resources and resource templates the user may
// read, under switchboard://server/uri.
func (s *Server) listResources() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := s.offerings()
		if err != nil {
			return err
		}
		u := mustUser(r)
		c := u.caller()
		writeJSON(w, http.StatusOK, struct {
			Items     []resourceJSON `json:"items"`
			Templates []templateJSON `json:"templates"`
		}{
			mapSlice(o.Resources(r.Context(), &c), func(x tools.Resource) resourceJSON { return resourceJSON(x) }),
			mapSlice(o.Templates(r.Context(), &c), func(x tools.ResourceTemplate) templateJSON { return templateJSON(x) }),
		})
		return nil
	}
}

type readResourceBody struct {
	URI string `json:"uri"`
}

// readResource reads one resource by its switchboard:// URI.
func (s *Server) readResource() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, c, body, err := featureRequest[readResourceBody](s, w, r)
		if err != nil {
			return err
		}
		rcs, err := o.ReadResource(r.Context(), &c, featureAgent, body.URI)
		if err != nil {
			return featureHTTPError(err)
		}
		writeJSON(w, http.StatusOK, struct {
			Contents []resourceContentsJSON `json:"contents"`
		}{mapSlice(rcs, func(x tools.ResourceContents) resourceContentsJSON { return resourceContentsJSON(x) })})
		return nil
	}
}

type completeBody struct {
	// Ref names a prompt (server__prompt) or a resource template (its
	// switchboard:// URI template): exactly one.
	Ref struct {
		Prompt   string `json:"prompt"`
		Template string `json:"template"`
	} `json:"ref"`
	Argument string            `json:"argument"`
	Value    string            `json:"value"`
	Context  map[string]string `json:"context"`
}

// complete asks the server owning a prompt or resource template for
// values of one of its arguments (MCP completion/complete).
func (s *Server) complete() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, c, body, err := featureRequest[completeBody](s, w, r)
		if err != nil {
			return err
		}
		res, err := o.Complete(r.Context(), &c, featureAgent, tools.CompleteRequest{
			Ref: tools.CompleteRef{Prompt: body.Ref.Prompt, Template: body.Ref.Template}, Argument: body.Argument, Value: body.Value, Context: body.Context,
		})
		if err != nil {
			return featureHTTPError(err)
		}
		values := res.Values
		if values == nil {
			values = []string{}
		}
		writeJSON(w, http.StatusOK, struct {
			Values  []string `json:"values"`
			Total   int      `json:"total,omitempty"`
			HasMore bool     `json:"hasMore,omitempty"`
		}{values, res.Total, res.HasMore})
		return nil
	}
}

// featureHTTPError is the answer to a get, read or completion that was
// refused or failed: unknown names are 404, refusals by permission or
// policy 403 with the reason, an upstream server's own error 502 with its
// text (it is the server's answer to what the user sent).
func featureHTTPError(err error) error {
	var fe *gate.FeatureError
	var ref *gate.Refusal
	switch {
	case errors.As(err, &fe) && fe.Approval == "":
		return &Error{Status: http.StatusNotFound, Code: "not_found", Msg: fe.Msg}
	case errors.As(err, &fe) && fe.Approval == store.AuditDenied:
		return &Error{Status: http.StatusForbidden, Code: "denied_by_policy", Msg: fe.Msg}
	case errors.As(err, &fe):
		return &Error{Status: http.StatusForbidden, Code: "forbidden", Msg: fe.Msg}
	case errors.As(err, &ref):
		return &Error{Status: http.StatusServiceUnavailable, Code: "not_recorded", Msg: ref.Error(), Err: err}
	case errors.Is(err, tools.ErrUnavailable), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &Error{Status: http.StatusBadGateway, Code: "upstream_error", Msg: err.Error(), Err: err}
}
