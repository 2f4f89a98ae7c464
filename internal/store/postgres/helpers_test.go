package postgres_test

import "github.com/switchboard-mcp/switchboard/internal/llm"

func userText(s string) llm.Message { return llm.UserText(s) }
