package observe

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds Switchboard's Prometheus series in its own registry (never
// the global one, so several servers in one test binary do not clash).
// Create it with [NewMetrics]; the app creates it when it serves, passes it
// to the HTTP server and calls its Observe and Set methods from agent, tool
// and host hooks. All methods
// are safe for concurrent use; a nil *Metrics ignores every call.
type Metrics struct {
	reg *prometheus.Registry

	toolCalls    *prometheus.CounterVec
	toolLatency  *prometheus.HistogramVec
	modelReqs    *prometheus.CounterVec
	tokens       *prometheus.CounterVec
	ttft         *prometheus.HistogramVec
	serverUp     *prometheus.GaugeVec
	restarts     *prometheus.CounterVec
	httpRequests *prometheus.CounterVec
	httpLatency  *prometheus.HistogramVec
	// httpSeries holds each route, method and status's series once
	// looked up (httpKey: httpSeries): a lookup hashes the labels and
	// formats the status on every request otherwise.
	httpSeries sync.Map
}

type httpKey struct {
	route, method string
	status        int
}

type httpSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// NewMetrics returns Metrics with every series registered, plus the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_tool_calls_total", Help: "Tool calls by tool (catalogue name), server (as approval rules name it) and outcome, counted once per call by the gate.",
		}, []string{"tool", "server", "outcome"}),
		toolLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "switchboard_tool_call_duration_seconds", Help: "Tool call latency.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"server"}),
		modelReqs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_model_requests_total", Help: "Model requests by model and outcome.",
		}, []string{"model", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_model_tokens_total", Help: "Model tokens by model and direction (in, out).",
		}, []string{"model", "direction"}),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "switchboard_model_time_to_first_token_seconds", Help: "Time from model request to first token.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 10),
		}, []string{"model"}),
		serverUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "switchboard_mcp_server_up", Help: "1 when the MCP server is connected, else 0.",
		}, []string{"server"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_mcp_server_restarts_total", Help: "MCP server restarts.",
		}, []string{"server"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		httpLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "switchboard_http_request_duration_seconds", Help: "HTTP request latency by route pattern (streams included).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"route", "method"}),
	}
	m.reg.MustRegister(m.toolCalls, m.toolLatency, m.modelReqs, m.tokens, m.ttft,
		m.serverUp, m.restarts, m.httpRequests, m.httpLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry, for adding the app's own collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveToolCall counts one tool call and its latency. outcome is the
// audit outcome (internal/store's Outcome: "ok", "tool_error", "error",
// "cancelled", ...).
func (m *Metrics) ObserveToolCall(tool, server, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.toolCalls.WithLabelValues(tool, server, outcome).Inc()
	m.toolLatency.WithLabelValues(server).Observe(d.Seconds())
}

// ObserveModelRequest counts one model request; outcome is "ok" or "error".
// ttft is the time to the first token (zero when there was none); in and
// out are the tokens the provider reported.
func (m *Metrics) ObserveModelRequest(model, outcome string, ttft time.Duration, in, out int) {
	if m == nil {
		return
	}
	m.modelReqs.WithLabelValues(model, outcome).Inc()
	if ttft > 0 {
		m.ttft.WithLabelValues(model).Observe(ttft.Seconds())
	}
	m.tokens.WithLabelValues(model, "in").Add(float64(max(in, 0)))
	m.tokens.WithLabelValues(model, "out").Add(float64(max(out, 0)))
}

// SetServerUp records whether the named MCP server is connected.
func (m *Metrics) SetServerUp(server string, up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.serverUp.WithLabelValues(server).Set(v)
}

// ObserveRestart counts one restart of the named MCP server.
func (m *Metrics) ObserveRestart(server string) {
	if m == nil {
		return
	}
	m.restarts.WithLabelValues(server).Inc()
}

// ObserveHTTP counts one HTTP request by route pattern, method and status,
// and its latency.
func (m *Metrics) ObserveHTTP(route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	series := m.httpSeriesOf(route, method, status)
	series.requests.Inc()
	series.latency.Observe(d.Seconds())
}

// httpSeriesOf returns the series of a route, method and status, kept
// after the first request for a standard method. A method a client made
// up is counted but not kept, so that the keys stay the server's routes,
// the standard methods and the statuses: a small, fixed set.
func (m *Metrics) httpSeriesOf(route, method string, status int) httpSeries {
	k := httpKey{route, method, status}
	if v, ok := m.httpSeries.Load(k); ok {
		return v.(httpSeries)
	}
	s := httpSeries{
		requests: m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)),
		latency:  m.httpLatency.WithLabelValues(route, method),
	}
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions:
		m.httpSeries.Store(k, s)
	}
	return s
}
