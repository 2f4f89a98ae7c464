package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// ModelList is a provider's list of models as its API answers it: entries
// under "data" with an "id" (OpenAI and compatible servers, Anthropic) or
// under "models" with a "name" (Ollama, Gemini), and Gemini's page token.
type ModelList struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
	Models []struct {
		Name string `json:"name"`
	} `json:"models"`
	NextPageToken string `json:"nextPageToken"`
}

// Names returns the id or name of every entry, in the order listed.
func (l *ModelList) Names() []string {
	names := make([]string, 0, len(l.Data)+len(l.Models))
	for _, m := range l.Data {
		names = append(names, m.ID)
	}
	for _, m := range l.Models {
		names = append(names, m.Name)
	}
	return names
}

// GetModels sends a GET for a model list through t and decodes the answer:
// every adapter's [Lister] is built on it. A body cut off is a stream
// error; one that is not a model list is a [KindMalformed] error.
func (t *Transport) GetModels(ctx context.Context, url string, header http.Header) (*ModelList, error) {
	const what = "model list"
	b, err := t.Fetch(ctx, http.MethodGet, url, header, nil, what)
	if err != nil {
		return nil, err
	}
	var l ModelList
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, MalformedError(t.provider, what, err)
	}
	return &l, nil
}

// ModelNames lists the names of the models a GET of url answers, through
// [Transport.GetModels]: the Models method of most adapters.
func (t *Transport) ModelNames(ctx context.Context, url string, header http.Header) ([]string, error) {
	l, err := t.GetModels(ctx, url, header)
	if err != nil {
		return nil, err
	}
	return l.Names(), nil
}

// CheckListed is the Check of an adapter whose endpoint lists its models:
// it lists them through l (which also proves the key is accepted) and
// succeeds when model is empty or served reports it among the listed ids.
// Otherwise it returns a [KindNotFound] error whose message missing
// writes from the ids.
func CheckListed(ctx context.Context, l Lister, provider, model string, served func(ids []string) bool, missing func(ids []string) string) error {
	ids, err := l.Models(ctx)
	if err != nil {
		return err
	}
	if model == "" || served(ids) {
		return nil
	}
	return &Error{Provider: provider, Kind: KindNotFound, Message: missing(ids)}
}

// Fetch sends a request through t, as [Transport.Do] does, and returns the
// whole body of the answer: the non-streaming calls of every adapter. what
// names the answer in the stream error of a body cut off ("response").
func (t *Transport) Fetch(ctx context.Context, method, url string, header http.Header, body []byte, what string) ([]byte, error) {
	resp, err := t.Do(ctx, method, url, header, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, StreamError(t.provider, what, err)
	}
	return b, nil
}
