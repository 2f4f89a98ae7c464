package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Features is what the upstream MCP servers offer besides tools: prompts,
// resources and completion of their arguments. Each method names the
// upstream server and uses its own names and URIs; [Offerings] maps them
// to and from the names callers see. The app fills it from the host's
// pool.
type Features interface {
	// FeatureServers names the upstream servers that may offer prompts
	// and resources.
	FeatureServers() []string
	Prompts(ctx context.Context, server string) ([]tools.Prompt, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*tools.PromptResult, error)
	Resources(ctx context.Context, server string) ([]tools.Resource, error)
	ResourceTemplates(ctx context.Context, server string) ([]tools.ResourceTemplate, error)
	ReadResource(ctx context.Context, server, uri string) ([]tools.ResourceContents, error)
	Complete(ctx context.Context, server string, req tools.CompleteRequest) (*tools.Completion, error)
}

// Offerings are the upstream servers' prompts and resources as one caller
// may use them, whatever the surface (/mcp, the REST API, the web UI and
// the terminal chat through it): the one place that decides who sees,
// gets, reads and completes what, and audits it.
//
//   - A prompt is named server__prompt and allowed by the permission globs
//     that would allow a tool of that name.
//   - Resources need globs that cover the whole server (server__*), since a
//     resource is not one tool an admin could have named. Their URIs are
//     served as switchboard://<server>/<upstream URI>, which maps back only
//     to that server.
//   - Of the approval policy only deny rules apply: a get or read runs no
//     tool, so it is decided as a read-only tool of its name, and "ask"
//     lets it through.
//   - Every get and read is audited as server__prompt or server__resource;
//     a refused one is recorded as refused. A completion is checked like
//     the get or read it prepares, and only a refused one is recorded: an
//     allowed one is a lookup typed per keystroke, like a listing.
type Offerings struct {
	g   *Gate
	src Features
}

// Offerings returns the checked view of src. src must not be nil.
func (g *Gate) Offerings(src Features) *Offerings {
	if src == nil {
		panic("gate: Offerings needs the features of the upstream servers")
	}
	return &Offerings{g: g, src: src}
}

// FeatureError is a get, read or completion refused before it reached a
// server: Approval says why (forbidden, denied), or is "" when nothing of
// that name exists. Msg says it to the caller.
type FeatureError struct {
	Approval store.AuditApproval
	Msg      string
}

func (e *FeatureError) Error() string { return e.Msg }

// IsUnknown reports whether err says no prompt or resource of the name
// exists (or the caller may not learn that it does).
func IsUnknown(err error) bool {
	var fe *FeatureError
	return errors.As(err, &fe) && fe.Approval == ""
}

// URIScheme prefixes every resource URI callers see:
// switchboard://<server>/<the upstream URI, unchanged>. Server names use
// only letters, digits, _, . and - (config), so the first / after the
// server ends it, and the rest is the upstream URI byte for byte. Keeping
// it unencoded (rather than, say, base64) is what lets a resource template
// work: the client expands the rewritten template, and what it expands is
// exactly the upstream template's expansion behind the prefix.
const URIScheme = "switchboard://"

// ResourceURI is the URI callers see for the upstream URI uri of server.
func ResourceURI(server, uri string) string { return URIScheme + server + "/" + uri }

// UpstreamURI maps a caller's resource URI back to its server and
// upstream URI.
func UpstreamURI(uri string) (server, upstream string, ok bool) {
	rest, ok := strings.CutPrefix(uri, URIScheme)
	if !ok {
		return "", "", false
	}
	server, upstream, ok = strings.Cut(rest, "/")
	if !ok || server == "" || upstream == "" {
		return "", "", false
	}
	return server, upstream, true
}

// sep joins a server's name and its prompt's, as in tool names.
const sep = "__"

// mayResources reports whether c may list and read server's resources.
func mayResources(c *Caller, server string) bool { return c.Permits(server + sep + "*") }

// Prompts lists the prompts of every upstream server c may get, named
// server__prompt. A server that cannot list them (down, or offering none)
// is left out and logged: one server's failure does not hide the others'.
func (o *Offerings) Prompts(ctx context.Context, c *Caller) []tools.Prompt {
	out := []tools.Prompt{}
	for _, server := range o.src.FeatureServers() {
		ps, err := o.src.Prompts(ctx, server)
		if err != nil {
			o.g.logger.DebugContext(ctx, "listing prompts", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, p := range ps {
			p.Name = server + sep + p.Name
			if c.Permits(p.Name) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Resources lists the resources of every upstream server whose whole
// catalogue c may use, under callers' URIs and server__name names.
func (o *Offerings) Resources(ctx context.Context, c *Caller) []tools.Resource {
	out := []tools.Resource{}
	for _, server := range o.src.FeatureServers() {
		if !mayResources(c, server) {
			continue
		}
		rs, err := o.src.Resources(ctx, server)
		if err != nil {
			o.g.logger.DebugContext(ctx, "listing resources", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, r := range rs {
			r.URI, r.Name = ResourceURI(server, r.URI), server+sep+r.Name
			out = append(out, r)
		}
	}
	return out
}

// Templates lists resource templates like Resources: each behind the
// prefix, so that the caller's expansion reads through Switchboard.
func (o *Offerings) Templates(ctx context.Context, c *Caller) []tools.ResourceTemplate {
	out := []tools.ResourceTemplate{}
	for _, server := range o.src.FeatureServers() {
		if !mayResources(c, server) {
			continue
		}
		ts, err := o.src.ResourceTemplates(ctx, server)
		if err != nil {
			o.g.logger.DebugContext(ctx, "listing resource templates", logKeyServer, server, logKeyErr, err)
			continue
		}
		for _, t := range ts {
			t.URITemplate, t.Name = ResourceURI(server, t.URITemplate), server+sep+t.Name
			out = append(out, t)
		}
	}
	return out
}

// GetPrompt expands the prompt full (server__prompt) for c, audited under
// that name with agent as the surface's label. Resource URIs in its
// messages are callers' URIs.
func (o *Offerings) GetPrompt(ctx context.Context, c *Caller, agent, full string, args map[string]string) (*tools.PromptResult, error) {
	server, name, err := o.checkPrompt(ctx, c, agent, full, args)
	if err != nil {
		return nil, err
	}
	var res *tools.PromptResult
	err = o.audited(ctx, o.record(c, agent, full, server, args), func() (int64, error) {
		var err error
		res, err = o.src.GetPrompt(ctx, server, name, args)
		if err != nil {
			return 0, err
		}
		var n int64
		for i, m := range res.Messages {
			n += int64(len(m.Content.Text) + len(m.Content.Data))
			if m.Content.URI != "" && (m.Content.Type == tools.ContentResource || m.Content.Type == tools.ContentResourceLink) {
				res.Messages[i].Content.URI = ResourceURI(server, m.Content.URI)
			}
		}
		return n, nil
	})
	return res, err
}

// checkPrompt finds the server and upstream name of the prompt full and
// decides whether c may get (or complete) it; a refusal is recorded.
func (o *Offerings) checkPrompt(ctx context.Context, c *Caller, agent, full string, args map[string]string) (server, name string, err error) {
	if full == "" {
		return "", "", &FeatureError{Msg: "no prompt named; give the name of a prompt as the prompt list shows it (server__prompt)"}
	}
	server, name, ok := strings.Cut(full, sep)
	if !ok || !o.hasServer(server) {
		return "", "", &FeatureError{Msg: fmt.Sprintf("no prompt %q; the prompt list shows the prompts you may get, named server__prompt", full)}
	}
	rec := o.record(c, agent, full, server, args)
	if !c.Permits(full) {
		why := fmt.Sprintf("your permissions do not include the prompt %s; ask an administrator to allow it", full)
		o.g.Refused(ctx, rec, store.AuditForbidden, why)
		return "", "", &FeatureError{Approval: store.AuditForbidden, Msg: why}
	}
	if why := o.denied(full, server, name); why != "" {
		o.g.Refused(ctx, rec, store.AuditDenied, why)
		return "", "", &FeatureError{Approval: store.AuditDenied, Msg: why}
	}
	return server, name, nil
}

// ReadResource reads the resource uri (a caller's URI) through the server
// it names, if c may use that whole server, audited as server__resource.
// The contents carry callers' URIs.
func (o *Offerings) ReadResource(ctx context.Context, c *Caller, agent, uri string) ([]tools.ResourceContents, error) {
	server, up, err := o.checkResource(ctx, c, agent, uri)
	if err != nil {
		return nil, err
	}
	var rcs []tools.ResourceContents
	err = o.audited(ctx, o.record(c, agent, server+sep+"resource", server, map[string]string{"uri": up}), func() (int64, error) {
		var err error
		rcs, err = o.src.ReadResource(ctx, server, up)
		var n int64
		for i, rc := range rcs {
			n += int64(len(rc.Text) + len(rc.Blob))
			rcs[i].URI = uri
			if rc.URI != "" {
				rcs[i].URI = ResourceURI(server, rc.URI)
			}
		}
		return n, err
	})
	return rcs, err
}

// checkResource maps uri (a resource's or a template's) to its server and
// decides whether c may read (or complete) it; a refusal is recorded.
func (o *Offerings) checkResource(ctx context.Context, c *Caller, agent, uri string) (server, upstream string, err error) {
	server, up, ok := UpstreamURI(uri)
	if !ok || !o.hasServer(server) {
		return "", "", &FeatureError{Msg: fmt.Sprintf("no resource %q; the resource list shows the resources you may read, as switchboard://server/uri", uri)}
	}
	full := server + sep + "resource"
	rec := o.record(c, agent, full, server, map[string]string{"uri": up})
	if !mayResources(c, server) {
		why := fmt.Sprintf("your permissions do not cover the server %s (%s__*), which resources need; ask an administrator to allow it", server, server)
		o.g.Refused(ctx, rec, store.AuditForbidden, why)
		return "", "", &FeatureError{Approval: store.AuditForbidden, Msg: why}
	}
	if why := o.denied(full, server, "resource"); why != "" {
		o.g.Refused(ctx, rec, store.AuditDenied, why)
		return "", "", &FeatureError{Approval: store.AuditDenied, Msg: why}
	}
	return server, up, nil
}

// Complete asks the server owning req.Ref for values of one argument:
// req.Ref names a prompt as callers see it (server__prompt) or a resource
// template by its caller's URI template. It is decided like the get or
// read it prepares.
func (o *Offerings) Complete(ctx context.Context, c *Caller, agent string, req tools.CompleteRequest) (*tools.Completion, error) {
	var server string
	var err error
	switch {
	case req.Ref.Prompt != "" && req.Ref.Template == "":
		server, req.Ref.Prompt, err = o.checkPrompt(ctx, c, agent, req.Ref.Prompt, nil)
	case req.Ref.Template != "" && req.Ref.Prompt == "":
		server, req.Ref.Template, err = o.checkResource(ctx, c, agent, req.Ref.Template)
	default:
		err = &FeatureError{Msg: "a completion needs a reference to exactly one prompt (by name) or resource template (by uri)"}
	}
	if err != nil {
		return nil, err
	}
	if req.Argument == "" {
		return nil, &FeatureError{Msg: "a completion needs the name of the argument to complete"}
	}
	return o.src.Complete(ctx, server, req)
}

// hasServer reports whether server is one of the upstream servers.
func (o *Offerings) hasServer(server string) bool {
	for _, n := range o.src.FeatureServers() {
		if n == server {
			return true
		}
	}
	return false
}

// record is the audit record of a get or read, written like a tool
// call's under the name tool.
func (o *Offerings) record(c *Caller, agent, tool, server string, args map[string]string) store.AuditRecord {
	raw, _ := json.Marshal(args) // a map of strings always marshals
	return store.AuditRecord{User: c.AuditUser(), UserID: c.ID, Agent: agent, Tool: tool, Server: server, Arguments: raw}
}

// audited runs do between the audit Begin and Finish; do returns the
// bytes it produced. When the record cannot be written, do is not run.
func (o *Offerings) audited(ctx context.Context, rec store.AuditRecord, do func() (int64, error)) error {
	rec.Approval = store.AuditAutoApproved
	call, err := o.g.Begin(ctx, rec)
	if err != nil {
		return &Refusal{Err: fmt.Errorf("%s was not run: Switchboard could not record it in its audit log: %w", rec.Tool, ErrNotRecorded)}
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

// denied says why the approval policy refuses the get or read named full
// (name on server), or "" when it does not.
func (o *Offerings) denied(full, server, name string) string {
	e := tools.Entry{
		Name:   full,
		Origin: tools.Origin{Kind: tools.KindMCP, Server: server, Name: name},
		Info:   tools.Info{Annotations: &tools.Annotations{ReadOnlyHint: true}},
	}
	if o.g.Decide(e) != ActionDeny {
		return ""
	}
	return fmt.Sprintf("%s is denied by the approval policy (approvals rules); ask an administrator to change it", full)
}
