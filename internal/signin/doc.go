// Package signin is Switchboard's side of OpenID Connect sign-in for the
// web UI: a relying party that sends the browser to the organisation's
// provider with an authorization code request (PKCE S256, state, nonce)
// and turns the answer into a verified [Identity] (issuer, audience,
// expiry, nonce and signature checked by github.com/coreos/go-oidc).
//
// It holds the protocol only; who the identity is in Switchboard (a user
// found or created, a role, a session cookie) is the server's. go-oidc and
// golang.org/x/oauth2 types stay inside this package. The server and app
// import it; it imports only the standard library and those two.
package signin
