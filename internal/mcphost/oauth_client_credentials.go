package mcphost

import (
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// GrantClientCredentials is [OAuthConfig.Grant] for the OAuth client
// credentials grant (RFC 6749 section 4.4, MCP extension
// io.modelcontextprotocol/oauth-client-credentials, SEP-1046): Switchboard
// itself is the client, with a pre-registered id and secret, and no person
// logs in. The token endpoint comes from the server's protected-resource
// metadata and its authorization server's metadata, as for the
// authorization-code flow; the secret goes as client_secret_basic or
// client_secret_post, whichever the authorization server lists.
const GrantClientCredentials = "client_credentials"

// errClientCredentialsNeedSecret is returned for a client credentials grant
// configured without a client id and secret: the grant is for confidential
// clients only, and registering one dynamically would need a person.
var errClientCredentialsNeedSecret = errors.New("the oauth client_credentials grant needs a pre-registered clientId and clientSecret")

// clientCredentialsHandler returns the transport's OAuth handler for the
// client credentials grant. Tokens are kept in memory only: a new one is
// cheap to get without a person, so nothing is written to DataDir.
func clientCredentialsHandler(oc *OAuthConfig, hc *http.Client) (auth.OAuthHandler, error) {
	if oc.ClientID == "" || oc.ClientSecret == "" {
		return nil, errClientCredentialsNeedSecret
	}
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{
			ClientID:         oc.ClientID,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: oc.ClientSecret},
		},
		HTTPClient: hc,
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}
