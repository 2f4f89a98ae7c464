package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Client ID metadata documents: an MCP client may use an https URL as its
// client_id; the authorization server fetches the JSON document there and
// takes the client's name and redirect URIs from it. Fetching a URL a
// stranger names is server-side request forgery waiting to happen, so:
//
//   - the URL is https with a path, no user info, fragment or dot
//     segments ([CheckClientIDURL]); http only on a loopback host, and only
//     when [FetcherOptions].AllowLoopback is set (tests);
//   - the connection is refused unless the address it resolved to is a
//     public unicast address (no loopback, private, link-local, CGNAT,
//     unspecified or multicast), checked at dial time so DNS rebinding
//     cannot slip past a check made earlier;
//   - no redirect is followed at all, no proxy from the environment is used
//     (it would dial for us and skip the address check);
//   - the answer must come within Timeout and fit in MaxBytes, with status
//     200; the document's client_id must equal the URL exactly.

// ClientMetadata is what Switchboard uses of a client ID metadata
// document (RFC 7591 section 2 field names).
type ClientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
}

// ErrClientIDURL is wrapped by every refusal of a client_id URL.
var ErrClientIDURL = errors.New("client_id metadata document refused")

// CheckClientIDURL reports why raw may not be fetched as a client ID
// metadata document, or nil. allowLoopback admits http on a loopback host
// (tests only).
func CheckClientIDURL(raw string, allowLoopback bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %q is not a URL", ErrClientIDURL, raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowLoopback && IsLoopbackHost(u.Hostname()):
	default:
		return fmt.Errorf("%w: %q must be an https URL", ErrClientIDURL, raw)
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return fmt.Errorf("%w: %q must name a host, with no user info or fragment", ErrClientIDURL, raw)
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("%w: %q must have a path", ErrClientIDURL, raw)
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("%w: %q must not have . or .. path segments", ErrClientIDURL, raw)
		}
	}
	return nil
}

// FetcherOptions configure a [Fetcher]; the zero value is the production
// setting.
type FetcherOptions struct {
	// AllowLoopback admits http URLs and loopback addresses, so tests can
	// serve documents from httptest. Never set it in production.
	AllowLoopback bool
	// Timeout bounds one fetch, connection to last byte (default 5s).
	Timeout time.Duration
	// MaxBytes bounds the document (default 64 KiB).
	MaxBytes int64
}

// Fetcher fetches client ID metadata documents under the rules above. It
// is safe for concurrent use and owns no goroutines (keep-alives are off,
// so no idle connection outlives a fetch).
type Fetcher struct {
	opts   FetcherOptions
	client *http.Client
}

// NewFetcher returns a Fetcher; nil opts means the production defaults.
func NewFetcher(opts *FetcherOptions) *Fetcher {
	f := &Fetcher{}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.Timeout <= 0 {
		f.opts.Timeout = 5 * time.Second
	}
	if f.opts.MaxBytes <= 0 {
		f.opts.MaxBytes = 64 << 10
	}
	dialer := &net.Dialer{Timeout: f.opts.Timeout, Control: f.control}
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         dialer.DialContext,
			DisableKeepAlives:   true,
			TLSHandshakeTimeout: f.opts.Timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return fmt.Errorf("%w: redirects are not followed", ErrClientIDURL)
		},
		Timeout: f.opts.Timeout,
	}
	return f
}

// control refuses, at dial time, any address a client ID document may not
// be fetched from.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: dialing %q: %w", ErrClientIDURL, address, err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("%w: dialing %q: not an IP address", ErrClientIDURL, address)
	}
	if f.opts.AllowLoopback && ip.IsLoopback() {
		return nil
	}
	if !PublicIP(ip) {
		return fmt.Errorf("%w: %s is not a public address", ErrClientIDURL, ip)
	}
	return nil
}

// cgnat is the shared address space of RFC 6598, which Go's IsPrivate
// does not cover.
var cgnat = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// PublicIP reports whether ip is a public unicast address: not loopback,
// private, link-local, CGNAT, unspecified or multicast.
func PublicIP(ip net.IP) bool {
	if ip4 := ip.To4(); ip4 != nil {
		ip = ip4
		if cgnat.Contains(ip) || ip[0] == 0 {
			return false
		}
	}
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() &&
		!ip.IsLinkLocalUnicast() && !ip.IsInterfaceLocalMulticast()
}

// Fetch fetches and validates the client ID metadata document at
// clientID. Every refusal wraps [ErrClientIDURL] and says why.
func (f *Fetcher) Fetch(ctx context.Context, clientID string) (ClientMetadata, error) {
	if err := CheckClientIDURL(clientID, f.opts.AllowLoopback); err != nil {
		return ClientMetadata{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return ClientMetadata{}, fmt.Errorf("%w: %w", ErrClientIDURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return ClientMetadata{}, fmt.Errorf("%w: fetching %q: %w", ErrClientIDURL, clientID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ClientMetadata{}, fmt.Errorf("%w: fetching %q: status %d", ErrClientIDURL, clientID, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return ClientMetadata{}, fmt.Errorf("%w: reading %q: %w", ErrClientIDURL, clientID, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return ClientMetadata{}, fmt.Errorf("%w: document at %q is larger than %d bytes", ErrClientIDURL, clientID, f.opts.MaxBytes)
	}
	var m ClientMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return ClientMetadata{}, fmt.Errorf("%w: document at %q is not JSON client metadata: %w", ErrClientIDURL, clientID, err)
	}
	return m, m.check(clientID)
}

// check reports why m, fetched from clientID, is not a usable document.
func (m ClientMetadata) check(clientID string) error {
	if m.ClientID != clientID {
		return fmt.Errorf("%w: document's client_id %q differs from its URL %q", ErrClientIDURL, m.ClientID, clientID)
	}
	if len(m.RedirectURIs) == 0 {
		return fmt.Errorf("%w: document at %q has no redirect_uris", ErrClientIDURL, clientID)
	}
	for _, r := range m.RedirectURIs {
		u, err := url.Parse(r)
		if err != nil || !u.IsAbs() || u.Fragment != "" {
			return fmt.Errorf("%w: redirect URI %q must be absolute, without fragment", ErrClientIDURL, r)
		}
	}
	// Only public clients: a document cannot carry a secret, and
	// private_key_jwt is not supported.
	if m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none" {
		return fmt.Errorf("%w: token_endpoint_auth_method %q is not supported; use none (PKCE)", ErrClientIDURL, m.TokenEndpointAuthMethod)
	}
	return nil
}
