package config

import "testing"

func TestFilterAllows(t *testing.T) {
	tests := []struct {
		filter Filter
		name   string
		want   bool
	}{
		{Filter{}, "anything", true},
		{Filter{Allow: []string{"read_*", "list_dir"}}, "read_file", true},
		{Filter{Allow: []string{"read_*", "list_dir"}}, "write_file", false},
		{Filter{Deny: []string{"*write*"}}, "write_file", false},
		{Filter{Deny: []string{"*write*"}}, "read_file", true},
		{Filter{Allow: []string{"*"}, Deny: []string{"delete_*"}}, "delete_repo", false},
		{Filter{Deny: []string{`odd\*name`}}, "odd*name", false},
		{Filter{Deny: []string{`odd\*name`}}, "oddXname", true},
		{Filter{Allow: []string{"[bad"}}, "bad", false},
	}
	for _, tt := range tests {
		if got := tt.filter.Allows(tt.name); got != tt.want {
			t.Errorf("%+v.Allows(%q) = %v, want %v", tt.filter, tt.name, got, tt.want)
		}
	}
}

func TestTransport(t *testing.T) {
	tests := []struct {
		server MCPServer
		want   Transport
	}{
		{MCPServer{Command: "x"}, TransportStdio},
		{MCPServer{URL: "https://h/mcp"}, TransportAuto},
		{MCPServer{Type: "stdio", Command: "x"}, TransportStdio},
		{MCPServer{Type: "http", URL: "https://h/mcp"}, TransportHTTP},
		{MCPServer{Type: "streamable-http", URL: "https://h/mcp"}, TransportHTTP},
		{MCPServer{Type: "streamableHttp", URL: "https://h/mcp"}, TransportHTTP},
		{MCPServer{Type: "sse", URL: "https://h/sse"}, TransportSSE},
		{MCPServer{Type: "ws", URL: "wss://h"}, ""},
		{MCPServer{}, ""},
	}
	for _, tt := range tests {
		if got := tt.server.Transport(); got != tt.want {
			t.Errorf("%+v.Transport() = %q, want %q", tt.server, got, tt.want)
		}
	}
}
