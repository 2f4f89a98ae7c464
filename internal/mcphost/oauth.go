package mcphost

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// errNeedsLogin reports that a server demands OAuth and no stored token or
// interactive hook can satisfy it.
var errNeedsLogin = errors.New("the server requires OAuth authorization: run `switchboard mcp login` for it")

type oauthState struct{ s *server }

func newOAuthState(s *server) *oauthState { return &oauthState{s: s} }

func (a *oauthState) needsLogin() bool { return false }

func (s *server) oauthHandler() auth.OAuthHandler { return nil }
