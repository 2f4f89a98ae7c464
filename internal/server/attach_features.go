package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// A message may run an MCP prompt (its messages become the person's turn)
// and carry MCP resources (read now, their contents stored with the
// message and sent to the model). Both go through the gate's Offerings,
// so they are permitted, denied and audited as on /mcp.

// promptRunJSON names a prompt to run in place of a typed message.
type promptRunJSON struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
}

// Bounds of what resources add to one message.
const (
	MaxResources      = 8
	MaxResourceBytes  = 1 << 20
	resourceTextLabel = "Attached resource %s%s:\n\n%s"
)

// promptTurn expands the prompt p for c into the turn's message, the
// messages stored before it and the further parts of it. The prompt's
// last message must be the user's: it is what the model answers.
func (s *Server) promptTurn(ctx context.Context, c *gate.Caller, p *promptRunJSON) (string, []llm.Message, []llm.Part, error) {
	o, err := s.offerings()
	if err != nil {
		return "", nil, nil, err
	}
	res, err := o.GetPrompt(ctx, c, featureAgent, p.Name, p.Arguments)
	if err != nil {
		return "", nil, nil, featureHTTPError(err)
	}
	text, prelude, rest, err := PromptTurn(p.Name, res)
	if err != nil {
		return "", nil, nil, errorf(http.StatusUnprocessableEntity, "prompt_unusable", "%s", err.Error())
	}
	return text, prelude, rest, nil
}

// PromptTurn turns the expanded prompt name into a person's turn: the
// message, the messages stored before it and the further parts of it.
// The prompt's last message must be the user's: it is what the model
// answers. The terminal chat expands prompts through it too.
func PromptTurn(name string, res *tools.PromptResult) (string, []llm.Message, []llm.Part, error) {
	var msgs []llm.Message
	for _, m := range res.Messages {
		part := contentPart(m.Content)
		role := llm.RoleUser
		if m.Role == "assistant" {
			role = llm.RoleAssistant
		}
		// Consecutive contents of one role are one message, as a model
		// expects alternating turns.
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, part)
			continue
		}
		msgs = append(msgs, llm.Message{Role: role, Content: []llm.Part{part}})
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleUser {
		return "", nil, nil, fmt.Errorf("the prompt %s does not end with a user message, so there is nothing for the model to answer; type a message instead", name)
	}
	last := msgs[len(msgs)-1]
	text, rest := "Prompt "+name, last.Content
	if last.Content[0].Type == llm.PartText && last.Content[0].URI == "" {
		text, rest = last.Content[0].Text, last.Content[1:]
	}
	return text, msgs[:len(msgs)-1], rest, nil
}

// contentPart is one content block of a prompt message as a message part.
func contentPart(c tools.Content) llm.Part {
	switch c.Type {
	case tools.ContentText:
		return llm.TextPart(c.Text)
	case tools.ContentImage:
		if visionTypes[c.MIMEType] && len(c.Data) > 0 {
			return llm.ImagePart(c.MIMEType, c.Data)
		}
	case tools.ContentResource:
		return ResourcePart(tools.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Data})
	case tools.ContentResourceLink:
		return llm.TextPart(fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
	}
	return llm.TextPart(fmt.Sprintf("[%s content of type %s, which Switchboard cannot pass to a model]", c.Type, c.MIMEType))
}

// resourceParts reads the resources uris for c and returns their contents
// as message parts, each marked with its resource.
func (s *Server) resourceParts(ctx context.Context, c *gate.Caller, uris []string) ([]llm.Part, error) {
	if len(uris) == 0 {
		return nil, nil
	}
	if len(uris) > MaxResources {
		return nil, badRequest("%d resources attached; at most %d fit in one message", len(uris), MaxResources)
	}
	o, err := s.offerings()
	if err != nil {
		return nil, err
	}
	var out []llm.Part
	size := 0
	for _, uri := range uris {
		rcs, err := o.ReadResource(ctx, c, featureAgent, uri)
		if err != nil {
			return nil, featureHTTPError(err)
		}
		for _, rc := range rcs {
			if size += len(rc.Text) + len(rc.Blob); size > MaxResourceBytes {
				return nil, errorf(http.StatusRequestEntityTooLarge, "too_large",
					"the attached resources are larger than %d bytes together; attach fewer or smaller ones", MaxResourceBytes)
			}
			p := ResourcePart(rc)
			if p.URI == "" {
				p.URI = uri
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// ResourcePart is one read resource as a message part: text as text (with
// a line saying which resource it is), an image the models take as an
// image, textual bytes as text, and other bytes as a note saying they
// were not sent.
func ResourcePart(rc tools.ResourceContents) llm.Part {
	mime := ""
	if rc.MIMEType != "" {
		mime = " (" + rc.MIMEType + ")"
	}
	var p llm.Part
	switch {
	case rc.Blob == nil:
		p = llm.TextPart(fmt.Sprintf(resourceTextLabel, rc.URI, mime, rc.Text))
	case visionTypes[rc.MIMEType] && http.DetectContentType(rc.Blob) == rc.MIMEType:
		p = llm.ImagePart(rc.MIMEType, rc.Blob)
	case textual(rc.MIMEType) && utf8.Valid(rc.Blob):
		p = llm.TextPart(fmt.Sprintf(resourceTextLabel, rc.URI, mime, rc.Blob))
	default:
		p = llm.TextPart(fmt.Sprintf("[attached resource %s%s: %d bytes of binary data, which Switchboard does not send to a model]", rc.URI, mime, len(rc.Blob)))
	}
	p.URI = rc.URI
	return p
}

// textual reports whether mime names text a model can read as it is.
func textual(mime string) bool {
	mime, _, _ = strings.Cut(mime, ";")
	return strings.HasPrefix(mime, "text/") || mime == "" ||
		strings.HasSuffix(mime, "json") || strings.HasSuffix(mime, "xml") || strings.HasSuffix(mime, "yaml")
}
