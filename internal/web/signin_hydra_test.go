package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/signin"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlite"
)

// person is an account at the identity provider the test plays.
type person struct {
	Subject string
	Name    string
	Groups  []string
}

// idp is a running Ory Hydra with a login and consent app: the identity
// provider's side, which accepts every challenge for the person the test
// chose through Hydra's admin API (Hydra's documented design: it has no
// users of its own).
type idp struct {
	hydra
	mu sync.Mutex
	// who signs in next; guarded by mu.
	who person
}

func (p *idp) next(who person) {
	p.mu.Lock()
	p.who = who
	p.mu.Unlock()
}

func (p *idp) current() person {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.who
}

// admin calls Hydra's admin API with a JSON body and decodes the answer.
func (p *idp) admin(ctx context.Context, method, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, p.Admin+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e bytes.Buffer
		_, _ = e.ReadFrom(resp.Body)
		return fmt.Errorf("hydra %s %s: %s: %s", method, path, resp.Status, e.String())
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// startIdP runs the login and consent app and Hydra.
func startIdP(t *testing.T) *idp {
	t.Helper()
	p := &idp{}
	accept := func(w http.ResponseWriter, r *http.Request, kind string) {
		challenge := r.URL.Query().Get(kind + "_challenge")
		who := p.current()
		var body any
		if kind == "login" {
			body = map[string]any{"subject": who.Subject, "remember": false}
		} else {
			var req struct {
				Scope    []string `json:"requested_scope"`
				Audience []string `json:"requested_access_token_audience"`
			}
			if err := p.admin(r.Context(), http.MethodGet, "/admin/oauth2/auth/requests/consent?consent_challenge="+url.QueryEscape(challenge), nil, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			body = map[string]any{
				"grant_scope": req.Scope, "grant_access_token_audience": req.Audience, "remember": false,
				"session": map[string]any{"id_token": map[string]any{
					"preferred_username": who.Name, "email": who.Name + "@example.com", "groups": who.Groups,
				}},
			}
		}
		var out struct {
			RedirectTo string `json:"redirect_to"`
		}
		if err := p.admin(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/"+kind+"/accept?"+kind+"_challenge="+url.QueryEscape(challenge), body, &out); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		http.Redirect(w, r, out.RedirectTo, http.StatusFound)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { accept(w, r, "login") })
	mux.HandleFunc("GET /consent", func(w http.ResponseWriter, r *http.Request) { accept(w, r, "consent") })
	app := httptest.NewServer(mux)
	t.Cleanup(app.Close)
	p.hydra = startHydra(t, app.URL+"/login", app.URL+"/consent")
	return p
}

// client registers a confidential client redirecting to callback and
// returns its id and secret.
func (p *idp) client(t *testing.T, callback string) (id, secret string) {
	t.Helper()
	var out struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	err := p.admin(t.Context(), http.MethodPost, "/admin/clients", map[string]any{
		"client_secret": "switchboard-test-client-secret", "grant_types": []string{"authorization_code"},
		"response_types": []string{"code"}, "scope": "openid profile email",
		"redirect_uris": []string{callback}, "token_endpoint_auth_method": "client_secret_basic",
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.ID, out.Secret
}

var (
	alice = person{Subject: "alice-0001", Name: "alice", Groups: []string{"sb-admins", "staff"}}
	bob   = person{Subject: "bob-0002", Name: "bob", Groups: []string{"staff"}}
	carol = person{Subject: "carol-0003", Name: "carol", Groups: []string{"contractors"}}
)

// signInFor returns the stack option that signs in through p: members
// of sb-admins are admins with every tool, of staff users with one tool;
// nobody else may sign in.
func signInFor(t *testing.T, p *idp, clientID *string) func(db *sqlite.DB, base string) *server.SignIn {
	return func(db *sqlite.DB, base string) *server.SignIn {
		id, secret := p.client(t, base+"/auth/callback")
		if clientID != nil {
			*clientID = id
		}
		return &server.SignIn{
			Provider: signin.New(signin.Options{Issuer: p.Issuer, ClientID: id, ClientSecret: secret, RoleClaim: "groups"}),
			Label:    "Hydra",
			Roles: map[string]server.SignInRole{
				"sb-admins": {Role: store.RoleAdmin, Permissions: []string{"*"}},
				"staff":     {Role: store.RoleUser, Permissions: []string{"notes__search_notes"}},
			},
			Idle: time.Hour, Absolute: 24 * time.Hour,
			Sessions: db, Accounts: db,
		}
	}
}
