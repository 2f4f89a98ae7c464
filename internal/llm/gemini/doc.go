// Package gemini is the [llm.Provider] for Google's Gemini API
// (generateContent and streamGenerateContent under /v1beta), hand-written on
// net/http. Gemini's function calls carry no ids, so the adapter makes them
// up and carries each call's thought signature inside the id; tool results
// go back as functionResponse parts matched by name and order. Tool schemas
// are cut down to the OpenAPI subset Gemini accepts by package schema.
//
// Layer: adapter. It imports llm, sse and schema; only app imports it.
package gemini
