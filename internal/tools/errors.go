package tools

import "errors"

// ErrUnavailable reports that the backend of a tool (an MCP server, an
// OpenAPI service) is not connected, so the call was not made.
var ErrUnavailable = errors.New("tool unavailable")

// ErrNotFound reports that no tool has the requested catalogue name.
var ErrNotFound = errors.New("tool not found")
