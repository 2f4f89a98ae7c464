package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/oauth"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// maxRegistrationBytes bounds a registration request body.
const maxRegistrationBytes = 16 << 10

// registration is the part of an RFC 7591 client metadata document that
// Switchboard reads; other fields are ignored, as section 3.1 says.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
}

type registered struct {
	ClientID         string `json:"client_id"`
	ClientIDIssuedAt int64  `json:"client_id_issued_at"`
	registration
}

// oauthError is an OAuth error response (RFC 6749 section 5.2, RFC 7591
// section 3.2.2): OAuth clients read these fields, not the REST API's.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeOAuthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, oauthError{Error: code, Description: desc})
}

// register is RFC 7591 dynamic client registration for public clients:
// no secret is issued, PKCE binds each code to whoever started the flow.
func (s *Server) register() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.oauthOn() {
			return errNoOAuth
		}
		// Registration is unauthenticated and stores a row: bounded per
		// client address.
		if err := s.registerLimits.allow(r.RemoteAddr); err != nil {
			return err
		}
		reg, bad := readRegistration(w, r)
		if bad != nil {
			writeOAuthError(w, http.StatusBadRequest, bad.Error, bad.Description)
			return nil
		}
		reg.TokenEndpointAuthMethod = "none"
		if len(reg.GrantTypes) == 0 {
			reg.GrantTypes = []string{"authorization_code", "refresh_token"}
		}
		reg.ResponseTypes = []string{"code"}
		now := s.opts.Now()
		c := store.OAuthClient{ID: newClientID(), Name: reg.ClientName, RedirectURIs: reg.RedirectURIs, Source: store.OAuthClientRegistered, CreatedAt: now}
		if err := s.opts.OAuth.PutOAuthClient(r.Context(), c); err != nil {
			if errors.Is(err, store.ErrInvalid) {
				writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", err.Error())
				return nil
			}
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusCreated, registered{ClientID: c.ID, ClientIDIssuedAt: now.Truncate(time.Second).Unix(), registration: reg})
		return nil
	}
}

// readRegistration decodes and checks a registration request, or says
// what is wrong with it as an RFC 7591 error.
func readRegistration(w http.ResponseWriter, r *http.Request) (registration, *oauthError) {
	var reg registration
	r.Body = http.MaxBytesReader(w, r.Body, maxRegistrationBytes)
	if json.NewDecoder(r.Body).Decode(&reg) != nil {
		return reg, &oauthError{"invalid_client_metadata", "the body must be a JSON client metadata document (RFC 7591) of at most 16 KiB"}
	}
	if m := reg.TokenEndpointAuthMethod; m != "" && m != "none" {
		return reg, &oauthError{"invalid_client_metadata", `only public clients are supported: token_endpoint_auth_method must be "none" (PKCE S256 protects the code)`}
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return reg, &oauthError{"invalid_client_metadata", "grant_types may hold only authorization_code and refresh_token"}
		}
	}
	if len(reg.ResponseTypes) > 0 && !slices.Equal(reg.ResponseTypes, []string{"code"}) {
		return reg, &oauthError{"invalid_client_metadata", `response_types must be ["code"]`}
	}
	if len(reg.ClientName) > 200 {
		return reg, &oauthError{"invalid_client_metadata", "client_name is longer than 200 characters"}
	}
	if err := oauth.CheckRedirectURIs(reg.RedirectURIs); err != nil {
		return reg, &oauthError{"invalid_redirect_uri", err.Error()}
	}
	return reg, nil
}

// newClientID returns a random client_id; it is not a secret (public
// clients), only unguessable so that one client cannot be mistaken for
// another.
func newClientID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "sbc_" + base64.RawURLEncoding.EncodeToString(b)
}
