package oauth

import (
	"fmt"
	"net/url"
	"strings"
)

// WellKnownServer is the well-known path segment of authorization server
// metadata (RFC 8414 section 3).
const WellKnownServer = "/.well-known/oauth-authorization-server"

// Endpoint paths of Switchboard's authorization server, below the issuer.
const (
	PathAuthorize = "/oauth/authorize"
	PathToken     = "/oauth/token"
	PathRevoke    = "/oauth/revoke"
	PathRegister  = "/oauth/register"
)

// ServerMetadata is the authorization server metadata document of RFC
// 8414 section 2, with the fields Switchboard fills.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	// ClientIDMetadataDocumentSupported tells MCP clients they may use an
	// https URL as client_id instead of registering.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
}

// NewServerMetadata returns the metadata of the authorization server with
// the given issuer, an https URL (http only on a loopback host) without
// query or fragment (RFC 8414 section 2). Only public clients with PKCE
// S256 are supported, so the token endpoint takes no client secret.
func NewServerMetadata(issuer string, scopes []string) (ServerMetadata, error) {
	if err := checkIssuer(issuer); err != nil {
		return ServerMetadata{}, err
	}
	base := strings.TrimSuffix(issuer, "/")
	return ServerMetadata{
		Issuer:                            base,
		AuthorizationEndpoint:             base + PathAuthorize,
		TokenEndpoint:                     base + PathToken,
		RevocationEndpoint:                base + PathRevoke,
		RegistrationEndpoint:              base + PathRegister,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{MethodS256},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		RevocationEndpointAuthMethods:     []string{"none"},
		ScopesSupported:                   scopes,
		ClientIDMetadataDocumentSupported: true,
	}, nil
}

// ServerMetadataURL returns where the metadata of issuer is served: the
// well-known segment between host and path (RFC 8414 section 3.1).
func ServerMetadataURL(issuer string) (string, error) {
	if err := checkIssuer(issuer); err != nil {
		return "", err
	}
	u, _ := url.Parse(issuer) // checked above
	return u.Scheme + "://" + u.Host + WellKnownServer + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// checkIssuer reports why issuer cannot name an authorization server.
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("issuer %q must be an absolute URL without user info, query or fragment, such as https://switchboard.example.com", issuer)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !IsLoopbackHost(u.Hostname())) {
		return fmt.Errorf("issuer %q must be https (http only on a loopback host, for local use)", issuer)
	}
	return nil
}
