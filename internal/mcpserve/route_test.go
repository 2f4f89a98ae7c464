package mcpserve

import "testing"

// TestRouteOf: every combination of what a request says and what the
// server holds goes where the handler's doc says.
func TestRouteOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    request
		want route
	}{
		{"2026-07-28 client", request{version: "2026-07-28"}, routeStateless},
		{"later client", request{version: "2027-01-01"}, routeStateless},
		{"stateless version with a session ID is still stateless", request{version: "2026-07-28", session: true, held: true, owner: true}, routeStateless},
		{"no session: initialize", request{version: "2025-11-25"}, routeNewSession},
		{"no version, no session", request{}, routeNewSession},
		{"held by this caller", request{version: "2025-06-18", session: true, signed: true, valid: true, held: true, owner: true}, routeHeld},
		{"held, unsigned ID (no session key)", request{session: true, held: true, owner: true}, routeHeld},
		{"held by another caller", request{session: true, held: true, owner: false}, routeForeign},
		{"signed for another caller", request{session: true, signed: true, valid: false}, routeForeign},
		{"signed for another caller, though held by this one", request{session: true, signed: true, valid: false, held: true, owner: true}, routeForeign},
		{"valid, held elsewhere, replicas share the key", request{session: true, signed: true, valid: true, shared: true}, routeRecreate},
		{"valid, held nowhere here, key not shared", request{session: true, signed: true, valid: true}, routeUnknown},
		{"unsigned and unknown", request{session: true}, routeUnknown},
		{"unsigned and unknown, replicas share the key", request{session: true, shared: true}, routeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := routeOf(tc.q); got != tc.want {
				t.Errorf("routeOf(%+v) = %d, want %d", tc.q, got, tc.want)
			}
		})
	}
}
