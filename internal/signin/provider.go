package signin

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Options configure a [Provider]. Issuer and ClientID are required.
type Options struct {
	// Issuer is the provider's issuer URL, exactly as its discovery
	// document and ID tokens spell it.
	Issuer       string
	ClientID     string
	ClientSecret string
	// Scopes requested; "openid" must be among them (default openid,
	// profile, email).
	Scopes []string
	// RoleClaim names the ID token claim whose values [Identity].Values
	// returns ("groups"); empty reads none.
	RoleClaim string
	// HTTPClient reaches the provider; nil means a client with a 30s timeout.
	HTTPClient *http.Client
	// Now is the clock for expiry checks; nil means time.Now.
	Now func() time.Time
}

// Provider is one configured OpenID provider. Discovery runs on first use
// and again after a failure, so Switchboard starts while the provider is
// down. A Provider is safe for concurrent use.
type Provider struct {
	opts Options

	// mu guards p: the discovered provider, nil until discovery succeeds.
	mu sync.Mutex
	p  *oidc.Provider
}

// New returns a provider for opts. It does no I/O.
func New(opts Options) *Provider {
	if opts.Issuer == "" || opts.ClientID == "" {
		panic("signin: New needs an issuer and a client ID")
	}
	if len(opts.Scopes) == 0 {
		opts.Scopes = []string{oidc.ScopeOpenID, "profile", "email"}
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Provider{opts: opts}
}

// Issuer returns the configured issuer URL.
func (p *Provider) Issuer() string { return p.opts.Issuer }

// discover returns the discovered provider, fetching discovery once it
// has not succeeded yet. The lock is held across the fetch so that
// concurrent first sign-ins make one request.
func (p *Provider) discover(ctx context.Context) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p != nil {
		return p.p, nil
	}
	// The provider keeps this client for its key fetches; the context
	// only bounds discovery.
	op, err := oidc.NewProvider(oidc.ClientContext(ctx, p.opts.HTTPClient), p.opts.Issuer)
	if err != nil {
		return nil, fmt.Errorf("reading the OpenID provider's discovery document at %s: %w", p.opts.Issuer, err)
	}
	p.p = op
	return op, nil
}

func (p *Provider) config(op *oidc.Provider, redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: p.opts.ClientID, ClientSecret: p.opts.ClientSecret,
		Endpoint: op.Endpoint(), RedirectURL: redirect, Scopes: p.opts.Scopes,
	}
}

// AuthURL returns where to send the browser to sign in with f, the
// provider answering at redirect.
func (p *Provider) AuthURL(ctx context.Context, f Flow, redirect string) (string, error) {
	op, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	return p.config(op, redirect).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), nil
}

// Identity is a person as the provider vouched for them in a verified ID
// token.
type Identity struct {
	Issuer, Subject string
	// Name is the best label the claims give: preferred_username, then
	// name, then email; may be empty.
	Name  string
	Email string
	// Values are the values of the role claim (a string or a list of
	// strings in the token); nil when it is absent.
	Values []string
}

// ErrRefused wraps every reason a provider's answer is not accepted: a
// code the provider would not exchange, an ID token that is missing,
// badly signed, for another issuer or audience, expired, or without the
// flow's nonce. The wrapped text says which, for the log.
var ErrRefused = errors.New("the OpenID provider's answer was refused")

// Exchange trades code for tokens at the provider, with f's PKCE
// verifier, and returns the identity of the verified ID token.
func (p *Provider) Exchange(ctx context.Context, f Flow, code, redirect string) (Identity, error) {
	op, err := p.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx = oidc.ClientContext(ctx, p.opts.HTTPClient)
	tok, err := p.config(op, redirect).Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("%w: exchanging the code: %v", ErrRefused, err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, fmt.Errorf("%w: the token response has no id_token (is the openid scope granted?)", ErrRefused)
	}
	return p.verify(ctx, op, f, raw)
}

// verify checks raw as the ID token of f: signature, issuer, audience,
// authorized party, expiry (go-oidc) and nonce (here).
func (p *Provider) verify(ctx context.Context, op *oidc.Provider, f Flow, raw string) (Identity, error) {
	idt, err := op.Verifier(&oidc.Config{ClientID: p.opts.ClientID, Now: p.opts.Now}).Verify(ctx, raw)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if f.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return Identity{}, fmt.Errorf("%w: the ID token's nonce is not this sign-in's", ErrRefused)
	}
	var c struct {
		AZP               string `json:"azp"`
		Name              string `json:"name"`
		PreferredUsername string `json:"preferred_username"`
		Email             string `json:"email"`
	}
	var all map[string]json.RawMessage
	if err := idt.Claims(&c); err != nil {
		return Identity{}, fmt.Errorf("%w: reading claims: %v", ErrRefused, err)
	}
	if err := idt.Claims(&all); err != nil {
		return Identity{}, fmt.Errorf("%w: reading claims: %v", ErrRefused, err)
	}
	// With several audiences the token must name us as the party it was
	// issued to (OpenID Connect Core section 3.1.3.7, items 4 and 5).
	if len(idt.Audience) > 1 && c.AZP != p.opts.ClientID {
		return Identity{}, fmt.Errorf("%w: the ID token has several audiences and azp %q is not this client", ErrRefused, c.AZP)
	}
	if idt.Subject == "" {
		return Identity{}, fmt.Errorf("%w: the ID token has no subject", ErrRefused)
	}
	id := Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: c.Email}
	for _, n := range []string{c.PreferredUsername, c.Name, c.Email} {
		if n != "" {
			id.Name = n
			break
		}
	}
	if p.opts.RoleClaim != "" {
		id.Values = claimValues(all[p.opts.RoleClaim])
	}
	return id, nil
}

// claimValues reads a claim that is a string or a list of strings;
// anything else gives none.
func claimValues(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []any
	if json.Unmarshal(raw, &many) != nil {
		return nil
	}
	var out []string
	for _, v := range many {
		if s, ok := v.(string); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Label returns a short name for the provider: its issuer's host.
func Label(issuer string) string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return issuer
	}
	return u.Hostname()
}
