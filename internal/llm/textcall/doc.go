// Package textcall is the text tool protocol for models without native tool
// calling: it renders the tool catalogue as a section of the system prompt
// (trimmed to a token budget by ranking the tools against the conversation),
// parses the calls the model writes back in its text (<tool_code>,
// <tool_use>, fenced or bare JSON, with small JSON slips repaired, and the
// formats local models are trained on: pythonic lists, Mistral, Functionary,
// Qwen3 XML, DeepSeek, gpt-oss harmony, GLM, Kimi, Command-R7B, Gemma and
// more, listed in docs/PROVIDERS.md), both whole and while streaming, keeps
// the model's reasoning (<think>, harmony's analysis channel) out of what
// runs, shows calls given only as examples instead of running them, and wraps an [llm.Provider] so that a model
// speaking this protocol looks like one with native tool calls.
//
// The usual entry point is [Wrap]; [Catalog] and [Parser] serve callers that
// drive the protocol themselves. A block the model clearly meant as a call
// but that names an unknown tool is still a call (with an
// *[UnknownToolError] saying what is available), so the model can be told.
//
// Layer: adapter, beside the llm/<provider> packages. It imports llm, and
// the tool retriever tools/rank to choose the tools a manifest describes;
// only app imports it.
package textcall
