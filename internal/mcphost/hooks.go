package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// SamplingMessage is one message of a sampling request or its answer.
// Content uses the catalogue's block type: text, image or audio.
type SamplingMessage struct {
	Role    string // "user" or "assistant"
	Content tools.Content
}

// ModelPreferences are the server's hints for choosing a model.
type ModelPreferences struct {
	Hints                []string // model name hints, in order of preference
	CostPriority         float64  // 0..1
	SpeedPriority        float64  // 0..1
	IntelligencePriority float64  // 0..1
}

// SamplingRequest is a server asking the host's model for a completion
// (sampling/createMessage).
type SamplingRequest struct {
	Messages         []SamplingMessage
	SystemPrompt     string
	MaxTokens        int64
	Temperature      float64
	StopSequences    []string
	ModelPreferences *ModelPreferences // nil when the server gave none
}

// SamplingResult is the model's answer.
type SamplingResult struct {
	Role       string // "" means "assistant"
	Content    tools.Content
	Model      string
	StopReason string
}

//nolint:staticcheck // sampling is deprecated in 2026-07-28 but still in use; see newClient
func (s *server) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	p := req.Params
	if p == nil {
		return nil, errors.New("sampling request without params")
	}
	sr := &SamplingRequest{
		SystemPrompt:  p.SystemPrompt,
		MaxTokens:     p.MaxTokens,
		Temperature:   p.Temperature,
		StopSequences: p.StopSequences,
	}
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		sr.Messages = append(sr.Messages, SamplingMessage{Role: string(m.Role), Content: contentFromMCP(m.Content)})
	}
	if mp := p.ModelPreferences; mp != nil {
		sr.ModelPreferences = &ModelPreferences{
			CostPriority: mp.CostPriority, SpeedPriority: mp.SpeedPriority, IntelligencePriority: mp.IntelligencePriority,
		}
		for _, h := range mp.Hints {
			if h != nil {
				sr.ModelPreferences.Hints = append(sr.ModelPreferences.Hints, h.Name)
			}
		}
	}
	res, err := s.opts.Sampling(ctx, s.cfg.Name, sr)
	if err != nil {
		return nil, fmt.Errorf("sampling for mcp server %q: %w", s.cfg.Name, err)
	}
	if res == nil {
		return nil, errors.New("sampling hook returned no result")
	}
	role := mcp.Role(res.Role)
	if role == "" {
		role = "assistant"
	}
	return &mcp.CreateMessageResult{Role: //nolint:staticcheck // see sample
	role, Content:                        contentToMCP(res.Content), Model: res.Model, StopReason: res.StopReason}, nil
}

func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	if p == nil {
		return nil, errors.New("elicitation request without params")
	}
	er := &tools.ElicitRequest{Server: s.cfg.Name, Message: p.Message, Mode: p.Mode, URL: p.URL, ElicitationID: p.ElicitationID}
	if er.Mode == "" {
		er.Mode = "form"
	}
	if p.RequestedSchema != nil {
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("encoding requested schema: %w", err)
		}
		er.Schema = b
	}
	res, err := s.opts.Elicitation(ctx, s.cfg.Name, er)
	if err != nil {
		return nil, fmt.Errorf("elicitation for mcp server %q: %w", s.cfg.Name, err)
	}
	if res == nil {
		return &mcp.ElicitResult{Action: tools.ElicitCancel}, nil
	}
	switch res.Action {
	case tools.ElicitAccept, tools.ElicitDecline, tools.ElicitCancel:
	default:
		return nil, fmt.Errorf("elicitation hook returned action %q (want accept, decline or cancel)", res.Action)
	}
	return &mcp.ElicitResult{Action: res.Action, Content: res.Content}, nil
}
