// Package llmtest helps test language-model adapters and their users:
//
//   - [Server], a scripted fake provider on a real loopback HTTP server that
//     serves exact wire bytes (cassette style): each [Reply] gives the
//     status, headers and body chunks, which may be split at any byte,
//     delayed, stalled or cut mid-stream; every request is recorded;
//   - [Run], the conformance suite every adapter passes, given a [Harness]
//     that renders neutral [Turn] scripts in the adapter's wire format;
//   - [FakeProvider], an in-process [llm.Provider] with scripted turns for
//     tests of the agent loop and other callers.
//
// Layer: test support for the llm contract. Only _test.go files import it.
package llmtest
