// Package gate is the one enforcement path of tool calls. Every surface
// that reaches a tool (the tools API, /v1/chat/completions, the MCP
// gateway over HTTP and stdio, agent runs with their @mentions and
// assistant tools, `switchboard call`) calls one function, [Gate.Call],
// with a [Surface] saying how it asks for approval; Call owns the order of
// the checks, the audit record, the outcome and the metrics count:
//
//  1. permission: the caller's tool globs, decided by the caller's
//     identity (user ID), plus every [Hold] (an extension point, for
//     example for pinned tools);
//  2. rate limit: the per-user tool-call [Limiter];
//  3. approval policy: [Policy] says allow, ask or deny; how a surface asks
//     (a stored approval, an MCP elicitation) is the surface's, the
//     decision is not;
//  4. audit: a record begun before the call and finished after it, and
//     one count in [Options].Observe.
//
// The steps are exported too ([Gate.Visible] for listings, [Gate.Approve]
// for an MCP server's sampling request, [Gate.Refused] for a call an
// agent's turn limit stopped) for what is not a catalogue call.
//
// The gate keeps no per-call state of its own and makes no store round
// trip besides the audit record, so the MCP gateway's hot path stays
// cheap. It may be imported by agent, server, mcpserve and app.
package gate
