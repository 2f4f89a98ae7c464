package stdio

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The wire form of a tools/call result, decoded straight into the
// catalogue's types: by encoding/json for a message that fits in the line
// buffer, by jstream for a longer one. Both end in toResult, so the two
// paths give the same result.

type wireResult struct {
	Content           []wireContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	// ResultType is "input_required" when a 2026-07-28 server asks for
	// input before it runs the tool; "" or "complete" otherwise.
	ResultType string `json:"resultType"`

	storedStructured *tools.StoredOutput // set by the streaming decoder only
}

type wireContent struct {
	Type     string        `json:"type"`
	Text     string        `json:"text"`
	Data     []byte        `json:"data"` // base64 on the wire
	MIMEType string        `json:"mimeType"`
	URI      string        `json:"uri"`
	Name     string        `json:"name"`
	Resource *wireResource `json:"resource"`

	stored *tools.StoredOutput // set by the streaming decoder only
}

type wireResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     []byte `json:"blob"` // base64 on the wire

	stored *tools.StoredOutput
}

// wireResponse is a response to one of the host's own tools/call requests.
type wireResponse struct {
	Result *wireResult    `json:"result"`
	Error  *jsonrpc.Error `json:"error"`
	// ID is the raw id, read by the streaming decoder only (the whole-line
	// path knows it from scanFrame).
	ID []byte `json:"-"`
}

// wireProgress is the params of notifications/progress.
type wireProgress struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total"`
	Message       string          `json:"message"`
}

// toResult converts a decoded result into the catalogue's Result.
func (w *wireResult) toResult() *tools.Result {
	res := &tools.Result{IsError: w.IsError, Content: make([]tools.Content, 0, len(w.Content))}
	for i := range w.Content {
		res.Content = append(res.Content, w.Content[i].toContent())
	}
	if s := bytes.TrimSpace(w.StructuredContent); len(s) > 0 && string(s) != "null" {
		res.Structured = w.StructuredContent
	}
	res.StoredStructured = w.storedStructured
	return res
}

// toContent converts one block as contentFromMCP does for the SDK's types.
func (c *wireContent) toContent() tools.Content {
	switch c.Type {
	case "text":
		return tools.Content{Type: tools.ContentText, Text: c.Text, Stored: c.stored}
	case "image":
		return tools.Content{Type: tools.ContentImage, Data: c.Data, MIMEType: c.MIMEType}
	case "audio":
		return tools.Content{Type: tools.ContentAudio, Data: c.Data, MIMEType: c.MIMEType}
	case "resource_link":
		return tools.Content{Type: tools.ContentResourceLink, URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}
	case "resource":
		out := tools.Content{Type: tools.ContentResource}
		if r := c.Resource; r != nil {
			out.URI, out.MIMEType, out.Text, out.Data, out.Stored = r.URI, r.MIMEType, r.Text, r.Blob, r.stored
		}
		return out
	default:
		// A kind the catalogue does not know: show what it was rather
		// than drop it.
		return tools.Content{Type: tools.ContentText, Text: fmt.Sprintf("[content of type %q]", c.Type)}
	}
}

// streamResult decodes a tools/call response from a message longer than
// the line buffer. Long texts and structured content go into out as they
// arrive (kept in memory up to the model's limit, in a tool output file
// beyond it); images and binary resources are held in memory, bounded by
// the stream's cap. A message over the cap is read to its end, keeping
// nothing, and fails with errTooLarge. It always consumes the message's
// line. On error every output file it made is removed.
// The texts it made come back too, for a caller that must drop the result.
// The response comes back also on error, with its ID when that was read.
func streamResult(s *jstream, out *tools.OutputStore, tool string) (*wireResponse, []*tools.OutputText, error) {
	var texts []*tools.OutputText
	newText := func() *tools.OutputText {
		t := out.NewText(tool)
		texts = append(texts, t)
		return t
	}
	resp := &wireResponse{}
	err := s.object(func(key string) error {
		switch key {
		case "result":
			resp.Result = &wireResult{}
			return streamCallResult(s, resp.Result, newText)
		case "error":
			var b bytes.Buffer
			if err := s.raw(&capped{b: &b, max: maxSmallString}); err != nil {
				return err
			}
			resp.Error = new(jsonrpc.Error)
			return json.Unmarshal(b.Bytes(), resp.Error)
		case "id":
			var b bytes.Buffer
			if err := s.rawAlways(&capped{b: &b, max: 1 << 10}); err != nil {
				return err
			}
			resp.ID = b.Bytes()
			return nil
		default:
			return s.skip()
		}
	})
	if err == nil {
		err = s.finish()
	}
	switch {
	case err != nil:
		s.lr.skipLine()
	case s.over:
		err = errTooLarge
	}
	if err != nil {
		for _, t := range texts {
			t.Discard()
		}
		return resp, nil, err
	}
	return resp, texts, nil
}

func streamCallResult(s *jstream, r *wireResult, newText func() *tools.OutputText) error {
	return s.object(func(key string) error {
		switch key {
		case "content":
			return s.array(func() error {
				var c wireContent
				if err := streamContent(s, &c, newText); err != nil {
					return err
				}
				r.Content = append(r.Content, c)
				return nil
			})
		case "structuredContent":
			if b, err := s.peek(); err != nil || b == 'n' {
				if err != nil {
					return err
				}
				return s.skip() // null
			}
			t := newText()
			if err := s.raw(t); err != nil {
				return err
			}
			text, st := t.Finish()
			r.StructuredContent, r.storedStructured = json.RawMessage(text), st
			if st != nil {
				r.StructuredContent = nil
			}
			return nil
		case "isError":
			lit, err := s.literal()
			r.IsError = string(lit) == "true"
			return err
		case "resultType":
			var err error
			r.ResultType, err = s.smallString()
			return err
		default:
			return s.skip()
		}
	})
}

func streamContent(s *jstream, c *wireContent, newText func() *tools.OutputText) error {
	return s.object(func(key string) error {
		var err error
		switch key {
		case "type":
			c.Type, err = s.smallString()
		case "mimeType":
			c.MIMEType, err = s.smallString()
		case "uri":
			c.URI, err = s.smallString()
		case "name":
			c.Name, err = s.smallString()
		case "text":
			c.Text, c.stored, err = streamText(s, newText())
		case "data":
			c.Data, err = streamBase64(s)
		case "resource":
			c.Resource = &wireResource{}
			err = s.object(func(key string) error {
				var err error
				r := c.Resource
				switch key {
				case "uri":
					r.URI, err = s.smallString()
				case "mimeType":
					r.MIMEType, err = s.smallString()
				case "text":
					r.Text, r.stored, err = streamText(s, newText())
				case "blob":
					r.Blob, err = streamBase64(s)
				default:
					err = s.skip()
				}
				return err
			})
		default:
			err = s.skip()
		}
		return err
	})
}

func streamText(s *jstream, t *tools.OutputText) (string, *tools.StoredOutput, error) {
	if err := s.str(t); err != nil {
		return "", nil, err
	}
	text, st := t.Finish()
	return text, st, nil
}

// streamBase64 reads a base64 string (image, audio or blob data) into memory.
func streamBase64(s *jstream) ([]byte, error) {
	var b bytes.Buffer
	if err := s.str(&b); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(b.Len()))
	n, err := base64.StdEncoding.Decode(out, b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("decoding base64 data: %w", err)
	}
	return out[:n], nil
}
