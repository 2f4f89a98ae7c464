// Package agent is Switchboard's agent runtime: the tool loop that turns a
// user's message into model calls and tool calls and back into an answer.
//
// [Runtime.Run] loads the conversation, asks the model with the tools the
// agent may use, runs the tool calls the model asks for (in parallel, under
// the approval [Policy], with per-call and per-turn limits and cancellation
// that reaches the tool), feeds results and errors back to the model, and
// repeats until the model answers without tool calls. Everything that
// happens is yielded as an [Event]. An optional router pre-check asks the
// model whether a message needs tools at all. The default assistant hands a
// message that mentions a named agent ("@bob check my mail") to that agent,
// and may hand its own answer on once per turn.
//
// A [Request] may narrow and extend what a run does. Permissions hide
// catalogue tools the caller may not use (per-user globs, through the
// gate, which every tool call of the run goes through as that caller), from
// every agent of the run; a call to a hidden tool is answered like a call
// to one that does not exist. Messages makes the run stateless: the caller
// (an OpenAI-compatible client) sends the whole conversation and the
// runtime neither reads nor writes History, though audit and usage are
// recorded. ClientTools are tools the caller runs itself: they are offered
// to the agent spoken to, and a model step that calls one ends the run
// with [StopClientTools] and the calls in [Done].ClientCalls, for the
// caller to run and send back in the next request's Messages. Catalogue
// calls of that same step are not run: their results could not reach the
// model through the caller's transcript, and the model asks again.
//
// Records are internal/store's: a conversation's messages are
// [store.Message], an agent is a [store.Agent], approvals, audit records and
// usage are the store's records with the store's vocabulary (outcomes,
// approval labels). Persistence is behind small interfaces declared here
// ([History], [Agents], [Approvals], [UsageRecorder]) and the store's
// [store.AuditLog], each holding only the methods the runtime calls, so
// internal/app passes its store as it is and tests pass hand-written
// fakes. Nil ones fall back to memory or to nothing, as documented on
// [Options].
//
// Layer: behaviour. It imports llm, tools and store's record types; server
// and app import it.
package agent
