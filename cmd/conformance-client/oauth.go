package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// followAuthorization plays the user's browser in the OAuth authorization
// step. The suite's authorization server grants at once and redirects to
// the client's redirect URL with code and state; nothing listens there, so
// the redirect is read, not followed.
func followAuthorization(ctx context.Context, authURL string) (code, state string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", "", fmt.Errorf("building authorization request: %w", err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("requesting authorization: %w", err)
	}
	defer resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", "", fmt.Errorf("authorization server answered %s without a redirect", resp.Status)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("parsing authorization redirect %q: %w", loc, err)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return "", "", fmt.Errorf("authorization denied: %s: %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return "", "", fmt.Errorf("authorization redirect %q has no code", loc)
	}
	return q.Get("code"), q.Get("state"), nil
}
