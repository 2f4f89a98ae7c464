package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Features is what the gateway needs of the upstream MCP servers to serve
// their prompts and resources: the app fills it from the host's pool. Each
// method names the upstream server and uses its own names and URIs; the
// gateway maps them to and from the names its clients see.
type Features interface {
	// FeatureServers names the upstream servers that may offer prompts
	// and resources.
	FeatureServers() []string
	Prompts(ctx context.Context, server string) ([]tools.Prompt, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*tools.PromptResult, error)
	Resources(ctx context.Context, server string) ([]tools.Resource, error)
	ResourceTemplates(ctx context.Context, server string) ([]tools.ResourceTemplate, error)
	ReadResource(ctx context.Context, server, uri string) ([]tools.ResourceContents, error)
	// FeaturesChanged returns a channel closed at the next change of an
	// upstream server's prompt or resource list. Take it before listing,
	// then take a new one after each close.
	FeaturesChanged() <-chan struct{}
}

// sep joins a server's name and its prompt's, as in tool names.
const sep = "__"

// logKeyServer is the attribute naming an upstream server in logs.
const logKeyServer = "server"

// uriScheme prefixes every resource URI the gateway serves:
// switchboard://<server>/<the upstream URI, unchanged>. Server names use
// only letters, digits, _, . and - (config), so the first / after the
// server ends it, and the rest is the upstream URI byte for byte. Keeping
// it unencoded (rather than, say, base64) is what lets a resource
// template work: the client expands the rewritten template, and what it
// expands is exactly the upstream template's expansion behind the prefix.
const uriScheme = "switchboard://"

// gatewayURI is the URI clients see for the upstream URI uri of server.
func gatewayURI(server, uri string) string { return uriScheme + server + "/" + uri }

// upstreamURI maps a gateway URI back to its server and upstream URI.
func upstreamURI(uri string) (server, upstream string, ok bool) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return "", "", false
	}
	server, upstream, ok = strings.Cut(rest, "/")
	if !ok || server == "" || upstream == "" {
		return "", "", false
	}
	return server, upstream, true
}

// promptName is the name clients see for the prompt name of server, as a
// tool's: server__name.
func promptName(server, name string) string { return server + sep + name }

// mayPrompt reports whether caller may see and get the prompt named (as
// clients see it) full: the permission globs that decide tools decide
// prompts under the same name.
func mayPrompt(caller *Caller, full string) bool { return caller.Permits(full) }

// mayResources reports whether caller may list and read server's
// resources: its globs must cover the whole server (server__* itself, as
// a name, matches them), since a resource is not one tool an admin could
// have named.
func mayResources(caller *Caller, server string) bool {
	return caller.Permits(server + sep + "*")
}

// serveFeatures is receiving middleware that answers the prompts and
// resources methods from [Options].Features, filtered by the caller's
// permissions. It never calls next for them: the SDK's own prompt and
// resource lists stay empty.
func (s *Server) serveFeatures(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.opts.Features == nil {
			return next(ctx, method, req)
		}
		caller := callerOf(ctx)
		switch r := req.(type) {
		case *mcp.ListPromptsRequest:
			return s.listPrompts(ctx, &caller), nil
		case *mcp.GetPromptRequest:
			return s.getPrompt(ctx, &caller, r.Params)
		case *mcp.ListResourcesRequest:
			return s.listResources(ctx, &caller), nil
		case *mcp.ListResourceTemplatesRequest:
			return s.listTemplates(ctx, &caller), nil
		case *mcp.ReadResourceRequest:
			return s.readResource(ctx, &caller, r.Params)
		}
		return next(ctx, method, req)
	}
}

// listPrompts lists the prompts of every upstream server the caller may
// get. A server that cannot list them (down, or offering none) is left
// out and logged: one server's failure does not hide the others'.
func (s *Server) listPrompts(ctx context.Context, caller *Caller) *mcp.ListPromptsResult {
	out := &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}
	for _, server := range s.opts.Features.FeatureServers() {
		ps, err := s.opts.Features.Prompts(ctx, server)
		if err != nil {
			s.logger.DebugContext(ctx, "listing prompts", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, p := range ps {
			name := promptName(server, p.Name)
			if !mayPrompt(caller, name) {
				continue
			}
			mp := &mcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			}
			out.Prompts = append(out.Prompts, mp)
		}
	}
	return out
}

// listResources lists the resources of every upstream server whose whole
// catalogue the caller may use, under gateway URIs.
func (s *Server) listResources(ctx context.Context, caller *Caller) *mcp.ListResourcesResult {
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for _, server := range s.opts.Features.FeatureServers() {
		if !mayResources(caller, server) {
			continue
		}
		rs, err := s.opts.Features.Resources(ctx, server)
		if err != nil {
			s.logger.DebugContext(ctx, "listing resources", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, r := range rs {
			out.Resources = append(out.Resources, &mcp.Resource{
				URI: gatewayURI(server, r.URI), Name: promptName(server, r.Name), Title: r.Title,
				Description: r.Description, MIMEType: r.MIMEType, Size: r.Size,
			})
		}
	}
	return out
}

// listTemplates lists resource templates like listResources: each
// template behind the gateway prefix, so that the client's expansion reads
// through the gateway.
func (s *Server) listTemplates(ctx context.Context, caller *Caller) *mcp.ListResourceTemplatesResult {
	out := &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}
	for _, server := range s.opts.Features.FeatureServers() {
		if !mayResources(caller, server) {
			continue
		}
		ts, err := s.opts.Features.ResourceTemplates(ctx, server)
		if err != nil {
			s.logger.DebugContext(ctx, "listing resource templates", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, t := range ts {
			out.ResourceTemplates = append(out.ResourceTemplates, &mcp.ResourceTemplate{
				URITemplate: gatewayURI(server, t.URITemplate), Name: promptName(server, t.Name), Title: t.Title,
				Description: t.Description, MIMEType: t.MIMEType,
			})
		}
	}
	return out
}

// getPrompt expands one prompt, if the caller may get it, audited under
// its gateway name.
func (s *Server) getPrompt(ctx context.Context, caller *Caller, p *mcp.GetPromptParams) (mcp.Result, error) {
	if p == nil || p.Name == "" {
		return nil, invalidParams("prompts/get needs the name of a prompt, as prompts/list shows it (server__prompt)")
	}
	server, name, ok := strings.Cut(p.Name, sep)
	if !ok || !s.hasServer(server) {
		return nil, invalidParams(fmt.Sprintf("no prompt %q; prompts/list shows the prompts you may get, named server__prompt", p.Name))
	}
	args, _ := json.Marshal(p.Arguments) // a map of strings always marshals
	rec := s.featureRecord(caller, p.Name, server, args)
	if !mayPrompt(caller, p.Name) {
		why := fmt.Sprintf("your permissions do not include the prompt %s; ask an administrator to allow it", p.Name)
		s.gate.Refused(ctx, rec, store.AuditForbidden, why)
		return nil, invalidParams(why)
	}
	if why := s.denied(p.Name, server, name); why != "" {
		s.gate.Refused(ctx, rec, store.AuditDenied, why)
		return nil, invalidParams(why)
	}
	var res *tools.PromptResult
	err := s.audited(ctx, rec, func() (int64, error) {
		var err error
		res, err = s.opts.Features.GetPrompt(ctx, server, name, p.Arguments)
		if err != nil {
			return 0, err
		}
		var n int64
		for _, m := range res.Messages {
			n += int64(len(m.Content.Text) + len(m.Content.Data))
		}
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	out := &mcp.GetPromptResult{Description: res.Description, Messages: make([]*mcp.PromptMessage, 0, len(res.Messages))}
	for _, m := range res.Messages {
		c := m.Content
		if c.URI != "" && (c.Type == tools.ContentResource || c.Type == tools.ContentResourceLink) {
			c.URI = gatewayURI(server, c.URI)
		}
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: mcpContent(c)})
	}
	return out, nil
}

// readResource reads one resource through the server its URI names, if the
// caller may use that whole server, audited as server__resource.
func (s *Server) readResource(ctx context.Context, caller *Caller, p *mcp.ReadResourceParams) (mcp.Result, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/read needs the uri of a resource, as resources/list shows it")
	}
	server, uri, ok := upstreamURI(p.URI)
	if !ok || !s.hasServer(server) {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	args, _ := json.Marshal(map[string]string{"uri": uri}) // a map of strings always marshals
	rec := s.featureRecord(caller, server+sep+"resource", server, args)
	if !mayResources(caller, server) {
		why := fmt.Sprintf("your permissions do not cover the server %s (%s__*), which resources need; ask an administrator to allow it", server, server)
		s.gate.Refused(ctx, rec, store.AuditForbidden, why)
		return nil, invalidParams(why)
	}
	if why := s.denied(rec.Tool, server, "resource"); why != "" {
		s.gate.Refused(ctx, rec, store.AuditDenied, why)
		return nil, invalidParams(why)
	}
	var rcs []tools.ResourceContents
	err := s.audited(ctx, rec, func() (int64, error) {
		var err error
		rcs, err = s.opts.Features.ReadResource(ctx, server, uri)
		var n int64
		for _, c := range rcs {
			n += int64(len(c.Text) + len(c.Blob))
		}
		return n, err
	})
	if err != nil {
		return nil, err
	}
	out := &mcp.ReadResourceResult{Contents: make([]*mcp.ResourceContents, 0, len(rcs))}
	for _, c := range rcs {
		rc := &mcp.ResourceContents{URI: gatewayURI(server, c.URI), MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
		if c.URI == "" {
			rc.URI = p.URI
		}
		out.Contents = append(out.Contents, rc)
	}
	return out, nil
}

// hasServer reports whether server is one of the upstream servers.
func (s *Server) hasServer(server string) bool {
	for _, n := range s.opts.Features.FeatureServers() {
		if n == server {
			return true
		}
	}
	return false
}

// featureRecord is the audit record of a prompt get or resource read,
// written like a tool call's under the name tool.
func (s *Server) featureRecord(caller *Caller, tool, server string, args json.RawMessage) store.AuditRecord {
	return store.AuditRecord{
		User: caller.AuditUser(), UserID: caller.ID, Agent: "mcp:http",
		Tool: tool, Server: server, Arguments: args,
	}
}

// audited runs do between the gate's audit Begin and Finish; do returns the
// bytes it produced. When the record cannot be written, do is not run.
func (s *Server) audited(ctx context.Context, rec store.AuditRecord, do func() (int64, error)) error {
	rec.Approval = store.AuditAutoApproved
	call, err := s.gate.Begin(ctx, rec)
	if err != nil {
		return fmt.Errorf("%s was not run: Switchboard could not record it in its audit log", rec.Tool)
	}
	n, err := do()
	res := store.AuditResult{Outcome: store.OutcomeOK, ResultBytes: n}
	if err != nil {
		res.Outcome, res.Error = store.OutcomeError, err.Error()
		if ctx.Err() != nil {
			res.Outcome = store.OutcomeCancelled
		}
	}
	call.Finish(ctx, res)
	return err
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// capabilities are the server's: tools with list_changed always, even
// while the catalogue is empty, since servers connecting later will fill
// it; prompts and resources when features are served. Not logging, the
// SDK's default, since the gateway sends no log messages to clients.
func capabilities(features bool) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if features {
		c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	return c
}

// followFeatures tells connected clients, until Close, that the prompt and
// resource lists changed whenever an upstream server's did.
func (s *Server) followFeatures() {
	defer s.wg.Done()
	changed := s.opts.Features.FeaturesChanged()
	for {
		select {
		case <-changed:
			changed = s.opts.Features.FeaturesChanged()
			s.announceFeatures()
		case <-s.ctx.Done():
			return
		}
	}
}

// changeMarker is the name and URI of an entry announceFeatures adds to the
// SDK's own (otherwise empty) lists and removes at once. No client sees it:
// serveFeatures answers the lists.
const changeMarker = uriScheme + "-/changed"

// announceFeatures sends notifications/prompts/list_changed and
// resources/list_changed to every session through the SDK, which sends
// them as each session's protocol version asks (on the session before
// 2026-07-28, to subscribed listeners after) and debounces them. The SDK
// announces only changes to its own lists, so one is made and undone.
func (s *Server) announceFeatures() {
	s.mcp.AddPrompt(&mcp.Prompt{Name: changeMarker}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, invalidParams("no such prompt")
	})
	s.mcp.RemovePrompts(changeMarker)
	s.mcp.AddResource(&mcp.Resource{URI: changeMarker, Name: changeMarker}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError(r.Params.URI)
	})
	s.mcp.RemoveResources(changeMarker)
}

// denied says why the approval policy refuses the get or read named full
// (name on server), or "" when it does not. Only deny rules apply: a get
// or read runs no tool and changes nothing, so it is decided as a
// read-only tool of that name, and "ask" (which only tool calls can put
// to the person) lets it through.
func (s *Server) denied(full, server, name string) string {
	e := tools.Entry{
		Name:   full,
		Origin: tools.Origin{Kind: tools.KindMCP, Server: server, Name: name},
		Info:   tools.Info{Annotations: &tools.Annotations{ReadOnlyHint: true}},
	}
	if s.gate.Decide(e) != ActionDeny {
		return ""
	}
	return fmt.Sprintf("%s is denied by the approval policy (approvals rules); ask an administrator to change it", full)
}
