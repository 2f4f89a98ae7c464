package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestRegistryCallNeverFetchesNetworkRef is SEP-2106's rule that a client
// must not dereference a network $ref in a tool schema (an SSRF and
// fetch-DoS vector): a schema naming a canary URL beside a same-document
// ref is kept byte for byte in the catalogue, calls go through, and the
// canary is never requested.
func TestRegistryCallNeverFetchesNetworkRef(t *testing.T) {
	var hits atomic.Int32
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"object"}`))
	}))
	defer canary.Close()
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"userId":{"type":"string","pattern":"^[a-z0-9-]+$"}},` +
		`"properties":{"id":{"$ref":"#/$defs/userId"},"profile":{"$ref":"` + canary.URL + `/profile.json"}},` +
		`"required":["id"]}`
	r := NewRegistry(nil)
	r.Set(Source{Kind: KindMCP, Server: "s"}, []Tool{newFake("lookup_user", schema)})
	e, ok := r.Lookup("s__lookup_user")
	if !ok {
		t.Fatal("s__lookup_user is not in the catalogue")
	}
	if got := string(e.Info.InputSchema); got != schema {
		t.Errorf("schema changed in the catalogue:\n got %s\nwant %s", got, schema)
	}
	for _, args := range []string{`{"id":"ok-1"}`, `{"id":"NOT OK"}`, `{"id":"a","profile":{"x":1}}`} {
		res, err := r.Call(context.Background(), "s__lookup_user", &CallRequest{Arguments: []byte(args)})
		if err != nil {
			t.Fatalf("Call(%s): %v", args, err)
		}
		// The network ref makes the schema uncompilable (the loader
		// refuses it), so the tool is called without validation, as for
		// any schema that does not compile.
		if res.IsError {
			t.Errorf("Call(%s) = %q, want the tool called", args, res.Text())
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the canary $ref was fetched %d times; network refs must never be dereferenced", n)
	}
}
