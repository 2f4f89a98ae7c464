package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
)

// fakeServer answers some paths with fixed bodies and everything else with
// a 404 the way Go's mux (Ollama) and llama.cpp do, and records what it got.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest // guarded by mu
}

type seenRequest struct {
	Method, Path, Query, Auth, Body string
}

func newFake(t *testing.T, routes map[string]string) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), string(b)})
		f.mu.Unlock()
		body, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			if _, lms := routes["*"]; lms {
				// LM Studio answers every path it does not serve with 200
				// and an error object.
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"error":"Unexpected endpoint or method. (%s %s)"}`, r.Method, r.URL.Path)
				return
			}
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

func newProbeClient(t *testing.T, base, model string, timeout time.Duration) *openai.Client {
	t.Helper()
	return openai.New(&openai.Options{
		BaseURL: base, Model: model, APIKey: "sk-secret", ProbeTimeout: timeout,
		HTTPOptions: llm.HTTPOptions{MaxRetries: -1},
	})
}

func TestToolReport(t *testing.T) {
	tests := []struct {
		name   string
		routes map[string]string
		path   string // base URL path, "/v1" unless set
		model  string
		want   llm.ToolReport
	}{
		{
			name:   "llama.cpp, caps say tools",
			routes: map[string]string{"GET /props": propsCapsTools, "GET /v1/models": vllmModels},
			model:  "qwen2.5-7b-instruct",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "llama.cpp", Reason: "chat template renders tools, per chat_template_caps"},
		},
		{
			name:   "llama.cpp, caps say no tools",
			routes: map[string]string{"GET /props": propsCapsNoTools},
			model:  "gemma-2-9b-it",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "llama.cpp", Reason: "chat template has no tool section, per chat_template_caps"},
		},
		{
			name:   "older llama.cpp, template without tools",
			routes: map[string]string{"GET /props": propsOldGemma},
			model:  "gemma",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "llama.cpp", Reason: "chat template has no tool section"},
		},
		{
			name:   "older llama.cpp with --jinja and a tool-use template; its /api/show imitation is not believed",
			routes: map[string]string{"GET /props": propsOldHermes, "POST /api/show": llamaCppShow},
			model:  "hermes",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "llama.cpp", Reason: "the model has a tool-use chat template"},
		},
		{
			name:   "llama.cpp imitation of /api/show alone says nothing",
			routes: map[string]string{"POST /api/show": llamaCppShow},
			model:  "hermes",
			want:   llm.ToolReport{Reason: "the endpoint does not say (no /props, /api/show or tool fields in its model list)"},
		},
		{
			name:   "ollama /v1, tools capability",
			routes: map[string]string{"POST /api/show": showTools},
			model:  "qwen2.5:7b",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "ollama", Reason: `"tools" capability`},
		},
		{
			name:   "ollama /v1, no tools capability",
			routes: map[string]string{"POST /api/show": showNoTools},
			model:  "llava",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "ollama", Reason: `no "tools" capability`},
		},
		{
			name:   "older ollama, template ranges over .Tools",
			routes: map[string]string{"POST /api/show": showOldTools},
			model:  "llama3.1",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "ollama", Reason: "template uses .Tools; server predates capabilities"},
		},
		{
			name:   "older ollama, template without .Tools",
			routes: map[string]string{"POST /api/show": showOldNoTools},
			model:  "gemma2",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "ollama", Reason: "template has no .Tools; server predates capabilities"},
		},
		{
			name:   "lm studio 0.4, trained for tool use",
			routes: map[string]string{"GET /api/v1/models": lmsV1, "GET /api/v0/models": lmsV0},
			model:  "qwen2.5-7b-instruct",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "lm studio", Reason: "trained_for_tool_use"},
		},
		{
			name:   "lm studio's 200 to unknown paths is not an answer",
			routes: map[string]string{"*": "", "GET /api/v1/models": lmsV1, "GET /v1/models": `{"object":"list","data":[{"id":"gemma-3-270m-it-qat","object":"model","owned_by":"organization_owner"}]}`},
			model:  "gemma-3-270m-it-qat",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "lm studio", Reason: "not trained_for_tool_use"},
		},
		{
			name:   "lm studio's 200 to unknown paths, nothing else",
			routes: map[string]string{"*": ""},
			model:  "m",
			want:   llm.ToolReport{Reason: "the endpoint does not say (no /props, /api/show or tool fields in its model list)"},
		},
		{
			name:   "lm studio 0.4, not trained for tool use",
			routes: map[string]string{"GET /api/v1/models": lmsV1},
			model:  "gemma-3-270m-it-qat",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "lm studio", Reason: "not trained_for_tool_use"},
		},
		{
			name:   "lm studio 0.3, tool_use capability",
			routes: map[string]string{"GET /api/v0/models": lmsV0},
			model:  "meta-llama-3.1-8b-instruct",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "lm studio", Reason: `capabilities has "tool_use"`},
		},
		{
			name:   "lm studio 0.3, model without capabilities",
			routes: map[string]string{"GET /api/v0/models": lmsV0},
			model:  "qwen2-vl-7b-instruct",
			want:   llm.ToolReport{Source: "lm studio", Reason: "the entry does not mention tools"},
		},
		{
			name:   "openrouter, tools supported",
			routes: map[string]string{"GET /api/v1/models": openRouterModels},
			path:   "/api/v1",
			model:  "openai/gpt-4o-mini",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "model list", Reason: `supported_parameters has "tools"`},
		},
		{
			name:   "openrouter, tools not supported",
			routes: map[string]string{"GET /api/v1/models": openRouterModels},
			path:   "/api/v1",
			model:  "sao10k/l3-euryale-70b",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "model list", Reason: `supported_parameters has no "tools"`},
		},
		{
			name:   "mistral, function calling",
			routes: map[string]string{"GET /v1/models": mistralModels},
			model:  "mistral-small-latest",
			want:   llm.ToolReport{Answer: llm.ToolsNative, Source: "model list", Reason: "capabilities.function_calling"},
		},
		{
			name:   "mistral, no function calling",
			routes: map[string]string{"GET /v1/models": mistralModels},
			model:  "mistral-embed",
			want:   llm.ToolReport{Answer: llm.ToolsText, Source: "model list", Reason: "capabilities.function_calling is false"},
		},
		{
			name:   "vllm: the list says nothing",
			routes: map[string]string{"GET /v1/models": vllmModels},
			model:  "Qwen/Qwen2.5-7B-Instruct",
			want:   llm.ToolReport{Source: "model list", Reason: "the entry does not mention tools"},
		},
		{
			name:   "404 to every probe",
			routes: map[string]string{},
			model:  "m",
			want:   llm.ToolReport{Reason: "the endpoint does not say (no /props, /api/show or tool fields in its model list)"},
		},
		{
			name: "garbage bodies",
			routes: map[string]string{
				"GET /props": `<html>oops</html>`, "POST /api/show": `{"capabilities": "tools"}`,
				"GET /api/v1/models": `{"models": 7}`, "GET /api/v0/models": `[1,2,3]`, "GET /v1/models": "\x00\xff{",
			},
			model: "m",
			want:  llm.ToolReport{Reason: "the endpoint does not say (no /props, /api/show or tool fields in its model list)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFake(t, tc.routes)
			path := tc.path
			if path == "" {
				path = "/v1"
			}
			c := newProbeClient(t, srv.URL+path, tc.model, 5*time.Second)
			got, err := c.ToolReport(ctx(t), "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ToolReport mismatch (-want +got):\n%s", diff)
			}
			for _, r := range srv.requests() {
				if r.Auth != "Bearer sk-secret" {
					t.Errorf("%s %s sent Authorization %q", r.Method, r.Path, r.Auth)
				}
			}
		})
	}
}

// TestToolReportRequests checks what is asked: each probe once, the model
// named and escaped, autoload off for a llama.cpp router, the base URL's
// path prefix kept.
func TestToolReportRequests(t *testing.T) {
	srv := newFake(t, nil)
	model := "org/model:Q4 & more?#"
	c := newProbeClient(t, srv.URL+"/proxy/v1/", model, 5*time.Second)
	if _, err := c.ToolReport(ctx(t), ""); err != nil {
		t.Fatal(err)
	}
	got := map[string]seenRequest{}
	for _, r := range srv.requests() {
		got[r.Method+" "+r.Path] = seenRequest{Query: r.Query, Body: r.Body}
	}
	want := map[string]seenRequest{
		"GET /proxy/props":         {Query: "autoload=false&model=org%2Fmodel%3AQ4+%26+more%3F%23"},
		"POST /proxy/api/show":     {Body: `{"model":"org/model:Q4 \u0026 more?#"}`},
		"GET /proxy/api/v1/models": {},
		"GET /proxy/api/v0/models": {},
		"GET /proxy/v1/models":     {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probes mismatch (-want +got):\n%s", diff)
	}
}

func TestToolReportOpenAIAsksOnlyTheList(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.String())
		mu.Unlock()
		return &http.Response{
			StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"}]}`)), Request: r,
		}, nil
	})
	c := openai.New(&openai.Options{APIKey: "sk", Model: "gpt-4o-mini", HTTPOptions: llm.HTTPOptions{HTTPClient: &http.Client{Transport: tr}}})
	got, err := c.ToolReport(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer != llm.ToolsUnknown || len(asked) != 1 || asked[0] != "GET https://api.openai.com/v1/models" {
		t.Errorf("report %+v after asking %v; want unknown after one GET of the model list", got, asked)
	}
}

// TestToolReportOnce checks the answer is remembered: many concurrent
// callers, and later ones, cause one round of probes.
func TestToolReportOnce(t *testing.T) {
	srv := newFake(t, map[string]string{"GET /props": propsCapsTools})
	c := newProbeClient(t, srv.URL+"/v1", "qwen", 5*time.Second)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if ok, err := c.SupportsTools(ctx(t), ""); !ok || err != nil {
				t.Errorf("SupportsTools = %v, %v", ok, err)
			}
		})
	}
	wg.Wait()
	if ok, err := c.SupportsTools(ctx(t), "qwen"); !ok || err != nil {
		t.Errorf("SupportsTools = %v, %v", ok, err)
	}
	if n := len(srv.requests()); n != 5 {
		t.Errorf("%d requests, want one round of 5 probes", n)
	}
	// Another model is asked about on its own.
	if _, err := c.ToolReport(ctx(t), "other"); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.requests()); n != 10 {
		t.Errorf("%d requests after a second model, want 10", n)
	}
}

// TestToolReportUnknownIsError: unknown keeps the caller's default.
func TestToolReportUnknownIsError(t *testing.T) {
	srv := newFake(t, nil)
	ok, err := newProbeClient(t, srv.URL+"/v1", "m", time.Second).SupportsTools(ctx(t), "")
	if ok || !errors.Is(err, llm.ErrToolSupportUnknown) {
		t.Errorf("SupportsTools = %v, %v; want an ErrToolSupportUnknown", ok, err)
	}
}

// TestToolReportHangingServer: a server that never answers costs the probe
// timeout once, leaves no goroutine behind, and is remembered as unknown.
func TestToolReportHangingServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	c := openai.New(&openai.Options{
		BaseURL: srv.URL + "/v1", Model: "m", ProbeTimeout: 200 * time.Millisecond,
		HTTPOptions: llm.HTTPOptions{HTTPClient: &http.Client{Transport: transport}},
	})
	start := time.Now()
	got, err := c.ToolReport(ctx(t), "")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.ToolReport{Reason: "the endpoint did not say within 200ms"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolReport mismatch (-want +got):\n%s", diff)
	}
	if took > 2*time.Second {
		t.Errorf("probing a hanging server took %v, want about 200ms", took)
	}
	start = time.Now()
	if _, err := c.ToolReport(ctx(t), ""); err != nil || time.Since(start) > 50*time.Millisecond {
		t.Errorf("second ToolReport took %v (%v); want it remembered", time.Since(start), err)
	}
}

// TestToolReportCallerGone: a caller that gives up does not leave its
// half-answer behind for the next one.
func TestToolReportCallerGone(t *testing.T) {
	srv := newFake(t, map[string]string{"POST /api/show": showTools})
	c := newProbeClient(t, srv.URL+"/v1", "qwen2.5:7b", 5*time.Second)
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.ToolReport(gone, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("ToolReport with a cancelled context = %v, want context.Canceled", err)
	}
	got, err := c.ToolReport(ctx(t), "")
	if err != nil || got.Answer != llm.ToolsNative {
		t.Errorf("ToolReport after a cancelled one = %+v, %v; want native", got, err)
	}
}

// TestToolReportNoRedirect attacks the key: every probe is redirected to
// another host, which must receive nothing at all.
func TestToolReportNoRedirect(t *testing.T) {
	other := newFake(t, map[string]string{"GET /props": propsCapsTools, "POST /api/show": showTools})
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), code)
			}))
			defer srv.Close()
			got, err := newProbeClient(t, srv.URL+"/v1", "m", 5*time.Second).ToolReport(ctx(t), "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Answer != llm.ToolsUnknown {
				t.Errorf("report %+v learnt through a redirect", got)
			}
			if seen := other.requests(); len(seen) != 0 {
				t.Errorf("the other host received %d requests (first %+v)", len(seen), seen[0])
			}
		})
	}
}

// TestToolReportBadBaseURL: a base URL that is not http(s) is not probed.
func TestToolReportBadBaseURL(t *testing.T) {
	got, err := newProbeClient(t, "file:///etc/passwd", "m", time.Second).ToolReport(ctx(t), "")
	if err != nil || got.Answer != llm.ToolsUnknown || got.Reason != `base URL "file:///etc/passwd" is not an http(s) URL` {
		t.Errorf("ToolReport = %+v, %v", got, err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAutoModeFollowsTheEndpoint runs the tool-mode wrapper in auto mode
// over a llama.cpp-shaped server: the template decides whether tools go out
// natively or as the text protocol, and the server is asked once across
// turns.
func TestAutoModeFollowsTheEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name   string
		props  string
		native bool
	}{
		{"template with tools", propsCapsTools, true},
		{"template without tools", propsCapsNoTools, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFake(t, map[string]string{
				"GET /props": tc.props,
				"POST /v1/chat/completions": `{"id":"c1","object":"chat.completion","created":1,"model":"m",
					"choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}]}`,
			})
			w := textcall.Wrap(newProbeClient(t, srv.URL+"/v1", "m", 5*time.Second), &textcall.Options{Mode: textcall.ModeAuto})
			req := &llm.Request{
				Messages: []llm.Message{llm.UserText("Weather in Oslo?")},
				Tools:    []llm.ToolSpec{{Name: "get_weather", Description: "Weather for a city", Parameters: []byte(`{"type":"object"}`)}},
			}
			for range 2 {
				if _, err := llm.Collect(w.Stream(ctx(t), req)); err != nil {
					t.Fatal(err)
				}
			}
			props, chats := 0, 0
			for _, r := range srv.requests() {
				switch r.Path {
				case "/props":
					props++
				case "/v1/chat/completions":
					chats++
					var body struct {
						Tools []any `json:"tools"`
					}
					if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
						t.Fatal(err)
					}
					if (len(body.Tools) > 0) != tc.native {
						t.Errorf("chat request carries %d native tools, want native %v", len(body.Tools), tc.native)
					}
				}
			}
			if props != 1 || chats != 2 {
				t.Errorf("%d /props and %d chat requests, want 1 and 2", props, chats)
			}
		})
	}
}

// TestToolReportHugeAnswer: an answer past llm.MaxProbeBody is not read
// into memory as a capability description.
func TestToolReportHugeAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/props" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"chat_template_caps":{"supports_tools":true},"chat_template":"`)
		pad := strings.Repeat("x", 64<<10)
		for range (llm.MaxProbeBody >> 16) + 1 {
			io.WriteString(w, pad)
		}
		io.WriteString(w, `"}`)
	}))
	defer srv.Close()
	got, err := newProbeClient(t, srv.URL+"/v1", "m", 5*time.Second).ToolReport(ctx(t), "")
	if err != nil || got.Answer != llm.ToolsUnknown {
		t.Errorf("ToolReport = %+v, %v; want unknown", got, err)
	}
}

// TestToolReportDown: a server that is not there is reported as such, not
// as one that said nothing.
func TestToolReportDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	withPassword := strings.Replace(base, "http://", "http://user:hunter2@", 1)
	got, err := newProbeClient(t, withPassword+"/v1", "m", 5*time.Second).ToolReport(ctx(t), "")
	if err != nil || got.Answer != llm.ToolsUnknown || !strings.HasPrefix(got.Reason, "the endpoint did not answer: probe GET http://user:xxxxx@") {
		t.Errorf("ToolReport = %+v, %v; want unknown, the endpoint did not answer", got, err)
	}
	if strings.Contains(got.Reason, "hunter2") {
		t.Errorf("the URL's password is in the reason: %s", got.Reason)
	}
}
