// Package observe is Switchboard's observability: [Metrics], its
// Prometheus series in a registry of its own, and [Tracing], spans
// exported over OTLP/HTTP. Both are nil-safe: a nil *Metrics or *Tracing
// ignores every call, so a part that may be observed takes a pointer and
// calls it unconditionally.
//
// Layer: leaf. It imports the standard library, Prometheus and
// OpenTelemetry only, so every layer may use it; internal/app creates the
// values when it serves (a one-shot command such as `switchboard tools`
// builds neither) and hands them to the parts it observes.
package observe
