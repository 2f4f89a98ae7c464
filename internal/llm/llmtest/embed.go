package llmtest

import (
	"errors"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// EmbedErrorCase is a reply that an [llm.Embedder] must turn into an
// [*llm.Error] of Kind.
type EmbedErrorCase struct {
	Name  string
	Reply Reply
	Kind  llm.ErrorKind
}

// RunEmbedErrors plays each case's reply on a [Server] and checks that
// embed, which calls the adapter's Embed against the server's URL, fails
// with an [*llm.Error] of the case's kind.
func RunEmbedErrors(t *testing.T, cases []EmbedErrorCase, embed func(t *testing.T, url string) error) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			err := embed(t, NewServer(t, tc.Reply).URL)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != tc.Kind {
				t.Errorf("Embed error = %v, want an *llm.Error of kind %s", err, tc.Kind)
			}
		})
	}
}
