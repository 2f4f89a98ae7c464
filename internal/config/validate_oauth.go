package config

// OAuth grants accepted in [OAuth.Grant].
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// checkOAuthGrant reports an unknown grant, and a client_credentials grant
// without the pre-registered id and secret it cannot work without.
func checkOAuthGrant(p *problems, at string, o *OAuth) {
	switch o.Grant {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" || o.ClientSecret.Value() == "" {
			p.add(at+".grant", "%q needs clientId and clientSecret, registered with the authorization server beforehand", o.Grant)
		}
	default:
		p.add(at+".grant", "unknown grant %q; use %q (a person logs in) or %q (a service account with clientId and clientSecret)",
			o.Grant, GrantAuthorizationCode, GrantClientCredentials)
	}
}
