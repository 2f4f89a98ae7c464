package mcphost

import (
	"context"

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
