package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Wire types, shared by requests and responses. Only what Switchboard sends
// or reads is declared.
type (
	wireRequest struct {
		Contents          []content   `json:"contents"`
		SystemInstruction *content    `json:"systemInstruction,omitempty"`
		Tools             []wireTool  `json:"tools,omitempty"`
		ToolConfig        *toolConfig `json:"toolConfig,omitempty"`
		GenerationConfig  *genConfig  `json:"generationConfig,omitempty"`
	}
	content struct {
		Role  string `json:"role,omitempty"`
		Parts []part `json:"parts"`
	}
	part struct {
		Text             string            `json:"text,omitempty"`
		Thought          bool              `json:"thought,omitempty"`
		ThoughtSignature string            `json:"thoughtSignature,omitempty"`
		InlineData       *blob             `json:"inlineData,omitempty"`
		FunctionCall     *functionCall     `json:"functionCall,omitempty"`
		FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	}
	blob struct {
		MIMEType string `json:"mimeType"`
		Data     []byte `json:"data"` // base64 on the wire
	}
	functionCall struct {
		ID   string          `json:"id,omitempty"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args,omitempty"`
	}
	functionResponse struct {
		ID       string          `json:"id,omitempty"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
		// Parts carries a result's media on Gemini 3, which reads
		// multimodal function responses; older models take the media as
		// parts beside the response.
		Parts []responsePart `json:"parts,omitempty"`
	}
	responsePart struct {
		InlineData *blob `json:"inlineData"`
	}
	wireTool struct {
		FunctionDeclarations []functionDecl `json:"functionDeclarations"`
	}
	functionDecl struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	toolConfig struct {
		FunctionCallingConfig callingConfig `json:"functionCallingConfig"`
	}
	callingConfig struct {
		Mode                 string   `json:"mode"`
		AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
	}
	genConfig struct {
		Temperature     *float64 `json:"temperature,omitempty"`
		MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
		StopSequences   []string `json:"stopSequences,omitempty"`
	}
)

// Tool-call ids. Gemini's function calls usually carry no id, so the
// adapter makes one up; when Gemini does send one it is kept, marked, and
// sent back with the response. A call's thought signature (Gemini 2.5 and
// later tie their reasoning to it, and Gemini 3 refuses a history without
// it) is carried in the id after sigSep, so it survives storage and
// restarts without any state in the client.
const (
	genPrefix = "call_"
	gidPrefix = "gid_"
	sigSep    = "~"
	// skipSignature is the value Gemini documents for calls whose signature
	// is unknown (histories from another provider).
	skipSignature = "skip_thought_signature_validator"
)

// splitID returns the Gemini id (empty for made-up ids) and the thought
// signature carried in a tool-call id.
func splitID(id string) (gid, sig string) {
	if i := strings.Index(id, sigSep); i >= 0 {
		id, sig = id[:i], id[i+len(sigSep):]
	}
	if strings.HasPrefix(id, gidPrefix) {
		gid = id[len(gidPrefix):]
	}
	return gid, sig
}

// encode builds the JSON body of a generateContent request.
func (c *Client) encode(req *llm.Request) ([]byte, error) {
	w := wireRequest{Contents: []content{}}
	if s := req.SystemPrompt(); s != "" {
		w.SystemInstruction = &content{Parts: []part{{Text: s}}}
	}
	if req.Temperature != nil || req.MaxTokens > 0 || len(req.Stop) > 0 {
		w.GenerationConfig = &genConfig{Temperature: req.Temperature, MaxOutputTokens: req.MaxTokens, StopSequences: req.Stop}
	}
	names := callNames(req.Messages)
	model := req.Model
	if model == "" {
		model = c.model
	}
	third := strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3")
	for i := range req.Messages {
		m := &req.Messages[i]
		var role string
		var parts []part
		var err error
		switch m.Role {
		case llm.RoleSystem:
			continue
		case llm.RoleUser:
			role = "user"
			parts, err = c.contentParts(m.Content)
		case llm.RoleAssistant:
			role = "model"
			parts, err = c.modelParts(m, third)
		case llm.RoleTool:
			role = "user"
			parts, err = c.resultParts(m, names, third)
		default:
			return nil, fmt.Errorf("%s: building request: message %d has unknown role %q", c.name, i, m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: building request: message %d: %w", c.name, i, err)
		}
		if len(parts) == 0 {
			continue
		}
		// Gemini wants the responses to parallel calls in one turn; merging
		// any two turns of the same role is harmless.
		if k := len(w.Contents) - 1; k >= 0 && w.Contents[k].Role == role {
			w.Contents[k].Parts = append(w.Contents[k].Parts, parts...)
			continue
		}
		w.Contents = append(w.Contents, content{Role: role, Parts: parts})
	}
	if len(req.Tools) > 0 {
		decls := make([]functionDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			params, err := parameters(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("%s: building request: parameters of tool %q: %w", c.name, t.Name, err)
			}
			decls = append(decls, functionDecl{Name: t.Name, Description: t.Description, Parameters: params})
		}
		w.Tools = []wireTool{{FunctionDeclarations: decls}}
		if tc := toolChoice(req.ToolChoice); tc != nil {
			w.ToolConfig = tc
		}
	}
	b, err := json.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding request: %w", c.name, err)
	}
	return b, nil
}

func toolChoice(tc llm.ToolChoice) *toolConfig {
	switch tc.Mode {
	case llm.ToolChoiceNone:
		return &toolConfig{callingConfig{Mode: "NONE"}}
	case llm.ToolChoiceRequired:
		return &toolConfig{callingConfig{Mode: "ANY"}}
	case llm.ToolChoiceTool:
		return &toolConfig{callingConfig{Mode: "ANY", AllowedFunctionNames: []string{tc.Name}}}
	default:
		return nil // AUTO is Gemini's default
	}
}

// callNames maps tool-call ids to names, for results that lack ToolName.
func callNames(msgs []llm.Message) map[string]string {
	names := make(map[string]string)
	for i := range msgs {
		for _, c := range msgs[i].ToolCalls {
			names[c.ID] = c.Name
		}
	}
	return names
}

func (c *Client) contentParts(ps []llm.Part) ([]part, error) {
	out := make([]part, 0, len(ps))
	for _, p := range ps {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				out = append(out, part{Text: p.Text})
			}
		case llm.PartImage:
			b, err := imageBlob(p)
			if err != nil {
				return nil, err
			}
			out = append(out, part{InlineData: b})
		default:
			return nil, fmt.Errorf("unsupported content part type %q", p.Type)
		}
	}
	return out, nil
}

// imageBlob returns an image's bytes. Gemini reads remote files only
// through its Files API, so an http(s) URL is refused rather than dropped.
func imageBlob(p llm.Part) (*blob, error) {
	if p.URL == "" {
		if p.MIMEType == "" {
			return nil, fmt.Errorf("image without a MIME type")
		}
		return &blob{MIMEType: p.MIMEType, Data: p.Data}, nil
	}
	rest, ok := strings.CutPrefix(p.URL, "data:")
	meta, data, found := strings.Cut(rest, ",")
	if !ok || !found || !strings.HasSuffix(meta, ";base64") {
		return nil, fmt.Errorf("image URL %.40q: Gemini takes images as bytes; send the image data or a base64 data: URL", p.URL)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("decoding data: URL image: %w", err)
	}
	return &blob{MIMEType: strings.TrimSuffix(meta, ";base64"), Data: raw}, nil
}

// modelParts renders an assistant message: its text, then its calls. On
// Gemini 3, the first call of a turn without any known signature gets the
// documented placeholder, or the request would be refused.
func (c *Client) modelParts(m *llm.Message, third bool) ([]part, error) {
	out, err := c.contentParts(m.Content)
	if err != nil {
		return nil, err
	}
	anySig := false
	for _, tc := range m.ToolCalls {
		gid, sig := splitID(tc.ID)
		anySig = anySig || sig != ""
		out = append(out, part{
			FunctionCall:     &functionCall{ID: gid, Name: tc.Name, Args: argsObject(tc.Arguments)},
			ThoughtSignature: sig,
		})
	}
	if third && !anySig && len(m.ToolCalls) > 0 {
		for i := range out {
			if out[i].FunctionCall != nil {
				out[i].ThoughtSignature = skipSignature
				break
			}
		}
	}
	return out, nil
}

// argsObject returns args when it is a JSON object, otherwise {}: Gemini
// takes args as an object, and a malformed history entry must not make the
// whole request invalid.
func argsObject(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return json.RawMessage("{}")
}

// resultParts renders a tool message as a functionResponse with its images:
// inside it on Gemini 3 (multimodal function responses), after it before. Gemini's convention is {"output": ...} or {"error": ...}.
func (c *Client) resultParts(m *llm.Message, names map[string]string, third bool) ([]part, error) {
	name := m.ToolName
	if name == "" {
		name = names[m.ToolCallID]
	}
	if name == "" {
		return nil, fmt.Errorf("tool result %q names no tool and answers no call in the conversation", m.ToolCallID)
	}
	key := "output"
	if m.IsError {
		key = "error"
	}
	resp, err := json.Marshal(map[string]string{key: m.Text()})
	if err != nil {
		return nil, fmt.Errorf("encoding tool result: %w", err)
	}
	gid, _ := splitID(m.ToolCallID)
	fr := &functionResponse{ID: gid, Name: name, Response: resp}
	out := []part{{FunctionResponse: fr}}
	for _, p := range m.Content {
		if p.Type != llm.PartImage {
			continue
		}
		b, err := imageBlob(p)
		if err != nil {
			return nil, err
		}
		if third {
			fr.Parts = append(fr.Parts, responsePart{InlineData: b})
		} else {
			out = append(out, part{InlineData: b})
		}
	}
	return out, nil
}
