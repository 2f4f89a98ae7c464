package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxProbeBody bounds the body [Transport.Probe] reads: a model list of a
// few hundred models (OpenRouter's) fits; a larger answer is not read.
const MaxProbeBody = 8 << 20

// ErrProbeBodyTooLarge is returned by [Transport.Probe] for an answer longer
// than [MaxProbeBody].
var ErrProbeBodyTooLarge = errors.New("answer too large to be a capability description")

// Probe sends one request to url for a capability probe and returns the
// status and body of the answer, whatever the status. Unlike [Transport.Do]
// it never retries, honours no timeout but ctx's (the caller bounds the
// probe), and never follows a redirect: a 3xx comes back as it is, so the
// headers (an API key) reach only the host the caller named.
func (t *Transport) Probe(ctx context.Context, method, url string, header http.Header, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("building probe %s: %w", method, err)
	}
	where := method + " " + req.URL.Redacted() // no password from the URL in messages
	for k, v := range header {
		req.Header[k] = v
	}
	client := *t.client // a shallow copy shares the connection pool
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("probe %s: %w", where, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxProbeBody+1))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading probe %s: %w", where, err)
	}
	if len(b) > MaxProbeBody {
		return resp.StatusCode, nil, fmt.Errorf("probe %s: %w", where, ErrProbeBodyTooLarge)
	}
	return resp.StatusCode, b, nil
}
