package server

import (
	"net/http"
	"net/url"
	"strings"
)

// CSRFHeader is the header the web UI sends on every request. A browser
// sends a custom header cross-origin only after a CORS preflight, which
// Switchboard never grants, so a page elsewhere cannot make a
// cookie-authenticated request that carries it.
const CSRFHeader = "X-Switchboard-CSRF"

var errCSRF = &Error{
	Status: http.StatusForbidden, Code: "csrf",
	Msg: "a request signed in by cookie that changes something must come from Switchboard's own pages (the " + CSRFHeader + " header and a same-origin request); scripts should use an API key",
}

// unsafeMethod reports whether m may change state.
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// checkCSRF refuses a cookie-authenticated request unless it carries
// [CSRFHeader], its Sec-Fetch-Site (when sent) is same-origin, and its
// Origin (when sent) is the server's own: a sibling subdomain is
// same-site but not same-origin, and is refused too.
func (s *Server) checkCSRF(r *http.Request) error {
	if r.Header.Get(CSRFHeader) == "" {
		return errCSRF
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return errCSRF
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return errCSRF
		}
	}
	return nil
}
