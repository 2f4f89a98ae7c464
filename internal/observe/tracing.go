package observe

import (
	"context"
	"fmt"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracing exports OpenTelemetry traces over OTLP/HTTP. Create it with
// [NewTracing] when the user set OTEL_EXPORTER_OTLP_ENDPOINT (the app reads
// the variable; this package reads no environment of its own choosing).
// [Tracing.HTTPHandler] makes one span per HTTP request, named by route
// pattern, continuing a caller's W3C traceparent; [Tracing.Start] adds
// spans for agent runs, model requests, tool calls and MCP requests
// without the caller importing OpenTelemetry.
//
// A nil *Tracing makes no spans. Methods are safe for concurrent use.
type Tracing struct {
	tp    *sdktrace.TracerProvider
	prop  propagation.TextMapPropagator
	trace trace.Tracer
}

// NewTracing starts a batching OTLP/HTTP exporter to endpoint (a URL such
// as http://localhost:4318; the path /v1/traces is added when it has none).
// Call [Tracing.Shutdown] to flush and stop it. Nothing is sent until the
// first span ends.
func NewTracing(ctx context.Context, endpoint, version string) (*Tracing, error) {
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("creating otlp trace exporter for %s: %w", endpoint, err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", "switchboard"),
		attribute.String("service.version", version),
	)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{
		tp:    tp,
		prop:  propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		trace: tp.Tracer("github.com/switchboard-mcp/switchboard"),
	}, nil
}

// Shutdown flushes pending spans and stops the exporter, until ctx ends.
// It is safe to call on a nil Tracing and more than once.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("flushing traces: %w", err)
	}
	return nil
}

// Start begins a span named name under ctx's span, with attributes given as
// key, value pairs. Call end with the operation's error (nil for success)
// when it finishes. On a nil Tracing it returns ctx and a no-op end.
func (t *Tracing) Start(ctx context.Context, name string, kv ...string) (context.Context, func(err error)) {
	if t == nil {
		return ctx, func(error) {}
	}
	attrs := make([]attribute.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(kv[i], kv[i+1]))
	}
	ctx, span := t.trace.Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// HTTPHandler wraps h in an HTTP server span named label; on a nil
// Tracing it returns h.
func (t *Tracing) HTTPHandler(label string, h http.Handler) http.Handler {
	if t == nil {
		return h
	}
	return otelhttp.NewHandler(h, label,
		otelhttp.WithTracerProvider(t.tp),
		otelhttp.WithPropagators(t.prop),
		// Prometheus has the HTTP metrics; keep otel's off.
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
	)
}
