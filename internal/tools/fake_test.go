package tools

import (
	"context"
	"encoding/json"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTool is a hand-written Tool; call may be nil (it then echoes the
// arguments as text).
type fakeTool struct {
	info Info
	call func(ctx context.Context, req *CallRequest) (*Result, error)
}

func (f *fakeTool) Info() Info { return f.info }

func (f *fakeTool) Call(ctx context.Context, req *CallRequest) (*Result, error) {
	if f.call != nil {
		return f.call(ctx, req)
	}
	return TextResult(string(req.Arguments)), nil
}

func newFake(name, schema string) *fakeTool {
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return &fakeTool{info: Info{Name: name, InputSchema: json.RawMessage(schema)}}
}
