// Package ollama is the [llm.Provider] for Ollama's native API (POST
// /api/chat streamed as NDJSON), hand-written on net/http. Beside chatting
// it answers [llm.ToolSupport] and [llm.ToolReporter] from /api/show, asked
// once per model, so the text tool protocol is used only for models that
// lack native tools, and checks the server with /api/tags. Hosts are read like OLLAMA_HOST ([ParseHost]).
//
// Layer: adapter. It imports llm and schema; only app imports it.
package ollama
