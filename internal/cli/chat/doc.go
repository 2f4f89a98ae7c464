// Package chat is Switchboard's terminal chat: the one-shot mode of
// `switchboard chat -p PROMPT` ([RunOnce]) and the interactive terminal UI
// ([RunTUI]).
//
// It drives an agent run through the small [Backend] interface declared
// here, so it can be tested without the rest of the program: internal/cli
// adapts the app's agent runtime, registry and server status to it. The
// one-shot mode writes the answer to stdout and tool activity to stderr.
// The interactive mode is a bubbletea program: the answer streams in as
// markdown, each tool call gets a line with a spinner and then its
// outcome, approvals are asked inline, and /tools, /servers, /agents, /new
// and /quit are commands.
//
// Layer: wiring, next to internal/cli, which is its only importer. It
// imports internal/agent, internal/tools and internal/llm.
package chat
