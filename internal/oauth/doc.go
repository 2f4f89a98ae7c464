// Package oauth holds the protocol rules of Switchboard as an OAuth 2.1
// authorization server for /mcp and the REST API, as pure functions with
// no storage and no HTTP routing of their own:
//
//   - PKCE (RFC 7636), S256 only: a missing or "plain" challenge is
//     refused at the authorization endpoint, a wrong verifier at the token
//     endpoint ([CheckChallenge], [VerifyPKCE]);
//   - redirect URI matching: exact, except the port of a loopback
//     redirect (RFC 8252 section 7.3) ([MatchRedirect]);
//   - protected resource metadata (RFC 9728): the document, its
//     well-known URL for a resource path, and the WWW-Authenticate
//     challenge a 401 carries ([ProtectedResource], [MetadataURL],
//     [Challenge]);
//   - client ID metadata documents: which client_id URLs may be fetched
//     and how, guarded against server-side request forgery
//     ([CheckClientIDURL], [Fetcher]).
//
// Why a package of its own: these rules decide who gets a token, so each
// is one function with a table test and an attack test, and the server
// routes and the store only call them.
//
// Layer: a leaf (1). It imports the standard library only; server and
// app use it.
package oauth
