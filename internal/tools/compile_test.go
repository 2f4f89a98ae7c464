package tools

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
)

// TestRegistryCompilesDeclaredDrafts checks that schemas naming their draft,
// as most MCP servers' do, are compiled with the embedded metaschemas and
// really validate, without any loader.
func TestRegistryCompilesDeclaredDrafts(t *testing.T) {
	drafts := []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
	for _, d := range drafts {
		t.Run(d, func(t *testing.T) {
			var logs bytes.Buffer
			r := NewRegistry(&RegistryOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			schema := `{"$schema":"` + d + `","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
			r.Set(Source{Kind: KindMCP, Server: "s"}, []Tool{newFake("t", schema)})
			res, err := r.Call(context.Background(), "s__t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := "invalid arguments for s__t: /n: missing required property"; res.Text() != want {
				t.Errorf("Call result = %q, want %q (logs: %s)", res.Text(), want, logs.String())
			}
		})
	}
}
