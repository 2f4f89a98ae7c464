package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkAuthenticatedRequest is one keyed request through the whole
// middleware (guard, authentication, rate limit) to a route that does no
// store work, so it measures what authentication costs per request.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	e := newEnv(b, func(o *Options) { o.Limits = Limits{Requests: -1} })
	h := e.srv.Handler()
	req := httptest.NewRequest(http.MethodGet, "/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+e.key)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
