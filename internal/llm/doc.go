// Package llm is the provider-neutral contract between Switchboard and language
// models: the values that cross it ([Message], [Part], [ToolCall], [ToolSpec],
// [Request], [Event], [Response], [Usage]), the [Provider] interface every wire
// adapter implements, optional extras found by type assertion ([Generator],
// [Checker], [ToolSupport], [ToolReporter]), the typed [*Error] every adapter returns, and the
// HTTP plumbing adapters share ([Transport]: retries with backoff that honour
// Retry-After, connect, first-token and idle timeouts, error-body decoding).
//
// Layer: contract. It imports only the standard library. Adapters
// (llm/openai, llm/anthropic, llm/gemini, llm/ollama) import it, never the
// other way round; behaviour packages (agent, server) and store may import it.
//
// A stream is an [iter.Seq2] of events:
//
//	for ev, err := range p.Stream(ctx, req) {
//		if err != nil {
//			return err // the stream is over
//		}
//		switch ev.Type {
//		case llm.EventTextDelta:
//			fmt.Print(ev.Text)
//		case llm.EventToolCall:
//			calls = append(calls, ev.ToolCall)
//		}
//	}
//
// or, when nothing needs to be shown as it arrives, [Collect] or [Generate].
package llm
