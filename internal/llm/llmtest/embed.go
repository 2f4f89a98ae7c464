package llmtest

import (
	"errors"
	"slices"
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

// EmbedTexts are the texts the adapters' Embed tests send; a fake server
// answers them with the vectors [CheckEmbedded] expects: {0.25, 2} and
// {0.5, -1}.
var EmbedTexts = []string{"send an e-mail", "turn off a light"}

// CheckEmbedded fails the test unless Embed returned the vectors the fake
// server sent for [EmbedTexts], in order, and no error.
func CheckEmbedded(t *testing.T, got [][]float32, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{0.25, 2}, {0.5, -1}}
	if len(got) != len(want) {
		t.Fatalf("got %d vectors, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("vector %d = %v, want %v", i, got[i], want[i])
		}
	}
}
