package llm

import (
	"context"
	"iter"
	"sync/atomic"
)

// Provider is a language model reached through one wire API.
//
// Stream sends req and returns the answer as a sequence of events. The
// request is sent when the sequence is first ranged over, not when Stream is
// called. The sequence may be ranged over once; ranging again yields a single
// error. Breaking out of the range cancels the request and releases the HTTP
// body before the range statement ends. An error ends the stream: it is the
// last pair yielded, and after it no event follows. A stream that completes
// ends with exactly one [EventStop], after any [EventUsage]. Cancelling ctx
// stops the request at once; the stream then yields an error that
// errors.Is(err, ctx.Err()). Other errors are [*Error] values, including
// a request the adapter cannot encode ([RequestError]).
//
// Retries of rate-limited or failed requests happen inside Stream, and only
// before the first event has been yielded: once the consumer has seen output,
// a failure is returned rather than retried.
//
// Stream must be safe to call from several goroutines at once; each returned
// sequence belongs to the goroutine that ranges over it.
type Provider interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// Generator is implemented by providers with a non-streaming call. [Generate]
// uses it when present. Errors are as for [Provider.Stream].
type Generator interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Checker is implemented by providers that can tell cheaply whether they
// answer (by listing models or a one-token request), for `switchboard models`
// and `switchboard doctor`. A nil error means the endpoint answered and the
// configured model exists as far as the provider can tell.
type Checker interface {
	Check(ctx context.Context) error
}

// ToolSupport is implemented by providers that can say whether a model
// supports native tool calling (Ollama's /api/show capabilities, llama.cpp's
// /props chat template: see [ToolReporter]). An endpoint that does not say
// gives an error wrapping [ErrToolSupportUnknown]. Callers without an answer
// try native tools and fall back on [ErrToolsUnsupported].
type ToolSupport interface {
	SupportsTools(ctx context.Context, model string) (bool, error)
}

// Embedder is implemented by providers with an embeddings endpoint
// (OpenAI-compatible /embeddings, Ollama /api/embed, Gemini
// batchEmbedContents). Embed returns one vector per text, in the order of
// texts, all of one dimension; model "" means the provider's configured
// model, which is rarely an embedding model, so callers name one. Errors
// are as for [Provider.Stream]; a reply whose vectors do not match the
// texts is a [KindMalformed] error (see [CheckEmbeddings]).
type Embedder interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// Lister is implemented by providers that can list the models they serve.
type Lister interface {
	Models(ctx context.Context) ([]string, error)
}

// Once wraps seq so that it may be ranged over once; later ranges yield
// only an error. Adapters return their streams through it.
func Once(seq iter.Seq2[Event, error]) iter.Seq2[Event, error] {
	var used atomic.Bool
	return func(yield func(Event, error) bool) {
		if used.Swap(true) {
			yield(Event{}, ErrStreamReused)
			return
		}
		seq(yield)
	}
}

// Failed returns a stream that yields only err: what an adapter returns when
// it cannot even build the request.
func Failed(err error) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) { yield(Event{}, err) }
}
