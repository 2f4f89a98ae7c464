package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// sync makes the MCP server's tools equal to the registry's: new and changed
// tools are added, vanished ones removed. The SDK then sends
// notifications/tools/list_changed to every session (debounced), so clients
// list again; what each one sees is filtered by [Server.filterList].
func (s *Server) sync() {
	want := make(map[string]string)
	bad := make(map[string]string)
	for _, e := range s.reg.List() {
		t, err := mcpTool(e)
		if err == nil {
			var b []byte
			if b, err = json.Marshal(t); err == nil {
				key := string(b)
				if s.served[e.Name] == key {
					want[e.Name] = key
					continue
				}
				if err = s.addTool(t); err == nil {
					want[e.Name] = key
					continue
				}
			}
		}
		bad[e.Name] = err.Error()
		if s.unservable[e.Name] != bad[e.Name] {
			s.logger.Warn("tool not served", logKeyTool, e.Name, logKeyErr, err)
		}
	}
	var gone []string
	for name := range s.served {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.mcp.RemoveTools(gone...)
	}
	s.served, s.unservable = want, bad
}

// addTool adds t to the MCP server. The SDK panics on schemas it rejects
// (an x-mcp-header it cannot use, say); such a schema comes from an upstream
// server, not from a programming error here, so the panic becomes an error
// and only that tool is left out.
func (s *Server) addTool(t *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("adding tool %q: %v", t.Name, r)
		}
	}()
	s.mcp.AddTool(t, s.callTool)
	return nil
}

// filterList is receiving middleware that leaves out of tools/list the
// tools the session's caller may not use, and answers a call of a held
// tool with why it is held. The SDK lists the server's tools
// (one page); this removes the forbidden ones from that page, so paging
// still works, with shorter pages.
func (s *Server) filterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			// A held tool is not served, so the SDK would answer "unknown
			// tool"; the gate refuses it, records the attempt and says why
			// (see [tools.HeldError]).
			if cr, ok := req.(*mcp.CallToolRequest); ok && cr.Params != nil {
				if _, he := s.reg.LookupHeld(cr.Params.Name); he != nil {
					return s.callTool(ctx, cr)
				}
			}
		}
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/list" {
			return res, err
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok || lr == nil {
			return res, err
		}
		caller := callerOf(ctx)
		kept := make([]*mcp.Tool, 0, len(lr.Tools))
		for _, t := range lr.Tools {
			e, ok := s.reg.Lookup(t.Name)
			if ok && s.permitted(ctx, caller, e) {
				kept = append(kept, t)
			}
		}
		lr.Tools = kept
		return lr, nil
	}
}

// mcpTool describes the catalogue entry e as an MCP tool under its
// catalogue name.
func mcpTool(e tools.Entry) (*mcp.Tool, error) {
	in, err := objectSchema(e.Info.InputSchema)
	if err != nil {
		return nil, err
	}
	t := &mcp.Tool{
		Name:        e.Name,
		Title:       e.Info.Title,
		Description: e.Info.Description,
		InputSchema: in,
	}
	if len(e.Info.OutputSchema) > 0 {
		if !json.Valid(e.Info.OutputSchema) {
			return nil, fmt.Errorf("output schema of %q is not valid JSON", e.Name)
		}
		t.OutputSchema = e.Info.OutputSchema
	}
	if a := e.Info.Annotations; a != nil {
		t.Annotations = &mcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return t, nil
}

// objectSchema checks that raw is a JSON object schema of type "object", as
// MCP requires of input schemas. An empty schema means any object.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	if string(m["type"]) != `"object"` {
		return nil, fmt.Errorf(`input schema has type %s, want "object"`, m["type"])
	}
	return raw, nil
}
