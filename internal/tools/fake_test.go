package tools

import (
	"context"
	"encoding/json"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echoArgs answers a call with its arguments as text.
func echoArgs(_ context.Context, req *CallRequest) (*Result, error) {
	return TextResult(string(req.Arguments)), nil
}

// newFake returns an in-process tool with schema (default an empty object
// schema) that echoes its arguments; tests replace Run to do otherwise.
func newFake(name, schema string) *Func {
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return &Func{Spec: Info{Name: name, InputSchema: json.RawMessage(schema)}, Run: echoArgs}
}
