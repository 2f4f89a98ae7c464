package openapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrCrossOrigin reports that a request would have carried the server's
// credentials to another origin (scheme, host and port) than the one they
// were configured for: a redirect there, or a document whose servers entry
// names another origin than the document's own.
var ErrCrossOrigin = errors.New("refused to send credentials to another origin")

// RedirectError is the error of a request whose answer redirected to
// another origin. It wraps [ErrCrossOrigin].
type RedirectError struct {
	From, To string // origins
	Status   int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s answered %d, a redirect to %s, another origin; not followed, so that the credentials configured for %s do not go there",
		e.From, e.Status, e.To, e.From)
}

func (e *RedirectError) Unwrap() error { return ErrCrossOrigin }

// origin returns u's scheme://host[:port], with the default port left out
// and host lowercased, so equal origins compare equal.
func origin(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	switch {
	case port == "" || (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443"):
		port = ""
	default:
		port = ":" + port
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return strings.ToLower(u.Scheme) + "://" + host + port
}

// sameOriginClient returns a copy of c that follows a redirect only within
// the origin of the request that was redirected. Go's client drops
// Authorization (and Cookie) on a redirect to another host, but not other
// headers, such as an X-Api-Key from Headers; refusing the redirect keeps
// every credential where it was configured. The caller's CheckRedirect,
// if any, still runs for same-origin redirects.
func sameOriginClient(c *http.Client) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		from := origin(via[0].URL)
		if to := origin(req.URL); to != from {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &RedirectError{From: from, To: to, Status: status}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}
