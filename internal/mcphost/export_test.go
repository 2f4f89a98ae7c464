package mcphost

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// CallThroughSDK returns a call of t that goes through the go-sdk session
// on the server's current connection even on stdio, skipping the pipe's
// direct path, with the same timeout: for the benchmarks that compare the
// two paths on one transport.
func CallThroughSDK(t tools.Tool) func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	mt := t.(*mcpTool)
	return func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
		c := mt.srv.current()
		ctx, cancel := context.WithTimeout(ctx, mt.srv.cfg.callTimeout())
		defer cancel()
		return mt.callSDK(ctx, c, req)
	}
}

// PerUserRunning returns how many per-user instances the named server runs.
func PerUserRunning(p *Pool, name string) int {
	s, _ := p.server(name)
	return s.users.running()
}

// PerUserPID returns the pid of user's instance of the named server, 0 when none.
func PerUserPID(p *Pool, name, user string) int {
	s, _ := p.server(name)
	return s.users.pid(user)
}

// PerUserReap runs the idle check of the named server as if at after past now.
func PerUserReap(p *Pool, name string, after time.Duration) {
	s, _ := p.server(name)
	s.users.reapIdle(time.Now().Add(after))
}
