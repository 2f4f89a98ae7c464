package mcpserve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// maxShownArguments bounds the arguments quoted in an approval question, so
// a huge argument cannot flood the client's dialog.
const maxShownArguments = 4 << 10

// approveSchema is the form of an approval question: one required boolean.
var approveSchema = json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Allow this call","description":"true runs the tool once with exactly these arguments; false refuses it","default":false}},"required":["approve"]}`)

// approve asks the caller about a call of e that the approval policy asks
// about (the gate decided that). It returns how the call was approved and,
// when it must not run, the refusal to send back as a tool error.
//
// Approval questions take one of two paths. Sessions on protocol versions
// before 2026-07-28 are asked with an elicitation/create request while the
// call waits (ask). From 2026-07-28 on a server may not send requests of
// its own: the call returns the question as an input request (askFirst)
// and the client calls again with the answer (answer).
func (s *Server) approve(ctx context.Context, req *mcp.CallToolRequest, e tools.Entry) (store.AuditApproval, string) {
	if roundTrips(req.Session) {
		return s.answer(req, e)
	}
	return s.ask(ctx, req.Session, e, req.Params.Arguments)
}

// ask asks the caller to confirm the call through elicitation.
func (s *Server) ask(ctx context.Context, ss *mcp.ServerSession, e tools.Entry, args json.RawMessage) (store.AuditApproval, string) {
	if _, guest := s.relay.guestOf(ss); guest && !s.relay.enabled() {
		return store.AuditUnavailable, cannotAskHere(e)
	}
	if !canElicit(ss) {
		return store.AuditUnavailable, cannotAsk(e)
	}
	actx, cancel := context.WithTimeout(ctx, s.opts.ApprovalTimeout)
	defer cancel()
	defer s.relay.await(ctx, ss)() // the answer may reach another replica
	res, err := ss.Elicit(actx, &mcp.ElicitParams{Message: question(e, args), RequestedSchema: approveSchema})
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			return store.AuditUnavailable, fmt.Sprintf("tool %s was not called: nobody answered the approval question within %v.", e.Name, s.opts.ApprovalTimeout)
		}
		s.logger.WarnContext(ctx, "approval question failed", logKeyTool, e.Name, logKeyErr, err)
		return store.AuditUnavailable, fmt.Sprintf("tool %s was not called: asking for approval failed (%v).", e.Name, err)
	}
	if res.Action == "accept" && res.Content["approve"] == true {
		return store.AuditApproved, ""
	}
	return store.AuditDeclined, fmt.Sprintf("tool %s was not called: the user declined it.", e.Name)
}

// approveInput is the ID of the approval question among a call's input
// requests.
const approveInput = "switchboard_approval"

// askFirst returns the result that asks a session on protocol 2026-07-28 or
// later to approve the call, or nil when the call needs no question now
// (the policy does not ask, the session uses the older protocol, the
// client cannot be asked, or this request already carries the answer).
func (s *Server) askFirst(req *mcp.CallToolRequest, e tools.Entry) *mcp.CallToolResult {
	if !roundTrips(req.Session) || !canElicit(req.Session) || s.gate.Decide(e) != ActionAsk {
		return nil
	}
	if _, answered := req.Params.InputResponses[approveInput]; answered {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approveInput: &mcp.ElicitParams{
			Mode: "form", Message: question(e, req.Params.Arguments), RequestedSchema: approveSchema,
		}},
		RequestState: callDigest(e.Name, req.Params.Arguments),
	}
}

// answer reads the answer to askFirst's question from the retried call.
func (s *Server) answer(req *mcp.CallToolRequest, e tools.Entry) (store.AuditApproval, string) {
	resp, ok := req.Params.InputResponses[approveInput]
	if !ok {
		return store.AuditUnavailable, cannotAsk(e)
	}
	// The answer is for the call it was asked about: the same tool with the
	// same arguments, which the request state binds.
	if req.Params.RequestState != callDigest(e.Name, req.Params.Arguments) {
		return store.AuditDeclined, fmt.Sprintf("tool %s was not called: the approval answer was given for another call; call again to be asked.", e.Name)
	}
	r, ok := resp.(*mcp.ElicitResult)
	if ok && r.Action == "accept" && r.Content["approve"] == true {
		return store.AuditApproved, ""
	}
	return store.AuditDeclined, fmt.Sprintf("tool %s was not called: the user declined it.", e.Name)
}

// roundTrips reports whether ss speaks protocol 2026-07-28 or later, where
// the server asks through input requests instead of requests of its own.
func roundTrips(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// callDigest identifies a call by tool name and arguments, with the
// arguments in canonical form (sorted keys, no spaces) so that a client
// re-encoding them on its second round still matches.
func callDigest(name string, args json.RawMessage) string {
	canon := []byte("{}")
	var v any
	if len(bytes.TrimSpace(args)) > 0 && json.Unmarshal(args, &v) == nil && v != nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

func cannotAsk(e tools.Entry) string {
	return fmt.Sprintf("tool %s needs approval before each call, and this MCP client cannot be asked "+
		"(it did not declare the elicitation capability), so the tool was not called. Use a client that supports "+
		"elicitation, or allow the tool with an approvals rule in the Switchboard configuration, for example "+
		"{server: %s, tool: %s, policy: allow}.", e.Name, gate.RuleServer(e), e.Origin.Name)
}

// cannotAskHere is the refusal of a call needing approval on a session
// this replica re-created (recreate) when answers are not relayed between
// replicas: the client's answer would reach whichever replica the
// balancer picks.
func cannotAskHere(e tools.Entry) string {
	return fmt.Sprintf("tool %s needs approval before each call, and this request reached a Switchboard replica "+
		"that does not hold this MCP session's stream (the session was created on another replica behind the load "+
		"balancer, or has expired), so the approval question cannot be asked and the tool was not called. "+
		"Approval questions can only be asked on the replica holding the session's stream: route /mcp requests "+
		"by their Mcp-Session-Id header to one replica or run the replicas on one PostgreSQL database (docs/DEPLOY.md), "+
		"use an MCP client on protocol 2026-07-28, "+
		"or allow the tool with an approvals rule, for example {server: %s, tool: %s, policy: allow}.",
		e.Name, gate.RuleServer(e), e.Origin.Name)
}

// canElicit reports whether the client of ss declared form elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	el := p.Capabilities.Elicitation
	// Neither mode declared means form, for older clients.
	return el.Form != nil || el.URL == nil
}

// question is the approval question for one call: it names the exact tool,
// where it lives, and the exact arguments.
func question(e tools.Entry, args json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow Switchboard to call the tool %s", e.Name)
	switch e.Origin.Kind {
	case tools.KindBuiltin:
		fmt.Fprintf(&b, " (built-in tool %q)", e.Origin.Name)
	default:
		fmt.Fprintf(&b, " (tool %q of %s server %q)", e.Origin.Name, e.Origin.Kind, e.Origin.Server)
	}
	b.WriteString("?")
	if e.Info.Annotations.Destructive() {
		b.WriteString(" It may change or delete data.")
	}
	b.WriteString("\nArguments:\n")
	b.WriteString(shownArguments(args))
	return b.String()
}

// shownArguments renders args indented, cut at maxShownArguments bytes.
func shownArguments(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return "{}"
	}
	var out bytes.Buffer
	if err := json.Indent(&out, args, "", "  "); err != nil {
		out.Reset()
		out.Write(args)
	}
	if out.Len() <= maxShownArguments {
		return out.String()
	}
	// Drop a rune cut in half at the end.
	cut := strings.ToValidUTF8(string(out.Bytes()[:maxShownArguments]), "")
	return fmt.Sprintf("%s\n… (%d more bytes not shown)", cut, out.Len()-len(cut))
}
