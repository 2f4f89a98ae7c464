package tools

import (
	"context"
	"fmt"
)

// Func is a [Tool] made of its description and a function, as
// http.HandlerFunc makes a handler of a function: for tools written in
// process, such as the assistant's agent-management tools and the fakes of
// tests. Its methods are as safe for concurrent use as Run is.
type Func struct {
	// Spec describes the tool; Info returns it as it is.
	Spec Info
	// Run answers a call. A nil Run makes every call fail with an error.
	Run func(ctx context.Context, req *CallRequest) (*Result, error)
}

// Info returns f.Spec.
func (f *Func) Info() Info { return f.Spec }

// Call runs f.Run.
func (f *Func) Call(ctx context.Context, req *CallRequest) (*Result, error) {
	if f.Run == nil {
		return nil, fmt.Errorf("calling tool %q: it has no function", f.Spec.Name)
	}
	return f.Run(ctx, req)
}

var _ Tool = (*Func)(nil)
