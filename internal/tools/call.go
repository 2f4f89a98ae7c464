package tools

import (
	"context"
	"fmt"
)

// Call validates the arguments of the tool named name against its input
// schema, calls it, and bounds its result (see bound.go).
//
// Nil, empty or null arguments mean {}. Arguments that are not a JSON object
// or do not match the schema give a tool-error [Result] (IsError) that lists
// each problem with its instance path, and the tool is not called. An unknown
// name gives an error wrapping [ErrNotFound], and a tool the [Pinner]
// holds a [HeldError] (wrapping [ErrHeld]); an error from the tool itself
// (the context ended, [ErrUnavailable]) is returned wrapped with the name.
// req may be nil. Call is safe for concurrent use, also with [Registry.Set].
func (r *Registry) Call(ctx context.Context, name string, req *CallRequest) (*Result, error) {
	e, ok := r.lookup(name)
	if !ok {
		if _, he := r.LookupHeld(name); he != nil {
			return nil, he
		}
		return nil, fmt.Errorf("calling tool %q: %w", name, ErrNotFound)
	}
	var call CallRequest
	if req != nil {
		call = *req
	}
	args, problem := e.val.check(r.logger, name, call.Arguments)
	if problem != "" {
		return ErrorResult("invalid arguments for " + name + ": " + problem), nil
	}
	call.Arguments = args
	// What the call keeps is its user's: the outputs of this call and
	// those it reads back with read_tool_output.
	out := r.outputs.ForUser(UserOf(ctx))
	if call.Output == nil {
		call.Output = out
	}
	res, err := e.Tool.Call(ctx, &call)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q: %w", name, err)
	}
	if res == nil {
		res = &Result{}
	}
	return r.bound(out, name, res), nil
}
