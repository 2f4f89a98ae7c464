// Package sse reads and writes Server-Sent Events as the WHATWG HTML
// standard defines them (section 9.2, "Server-sent events").
//
// [Decoder] reads events from a response body as they arrive, without
// buffering the whole body: fields event, data (several data lines joined
// with "\n"), id and retry; comment lines ignored; lines ended by CRLF, LF or
// CR; an event larger than a limit is an error, not unbounded memory.
// [WriteEvent] and [Write] are the server side, flushing each event.
//
// Layer: leaf. It imports only the standard library; provider adapters
// (llm/...) and the HTTP server import it.
package sse
