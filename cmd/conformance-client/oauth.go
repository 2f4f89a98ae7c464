package main

import (
	"context"
	"fmt"
	"net/http"
)

// followAuthorization plays the user's browser in the OAuth authorization
// step: it opens authURL and returns the callback URL the authorization
// server redirects to. The suite's authorization server grants at once;
// nothing listens at the callback, so the redirect is read, not followed.
// mcphost takes code, state and errors from the callback URL.
func followAuthorization(ctx context.Context, authURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", fmt.Errorf("building authorization request: %w", err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("requesting authorization: %w", err)
	}
	defer resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return "", fmt.Errorf("authorization server answered %s without a usable redirect: %w", resp.Status, err)
	}
	return loc.String(), nil
}
