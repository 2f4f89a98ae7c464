// Package web is Switchboard's browser UI: server-rendered HTML pages
// (chat, servers, tools, audit) and the plain JavaScript and CSS they use,
// all embedded in the binary with go:embed. There is no Node build step
// and no external asset: no CDN, no web font.
//
// The pages are shells. Their scripts call the server's JSON and SSE API
// (internal/server) on the same origin, anonymously on loopback or with
// the user's API key, which the page asks for once and keeps in the
// browser's localStorage. This package therefore knows the API only by its
// URLs and JSON shapes, not by Go types.
//
// Use [Handler] and mount it for GET requests at "/"; internal/server does
// this through its Options.Web.
//
// Layer: leaf. It imports only the standard library. internal/server (and
// internal/app, which wires it) may import it.
package web
