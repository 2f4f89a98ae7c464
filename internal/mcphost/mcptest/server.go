package mcptest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer holds what the server's handlers need.
type testServer struct {
	modes  []Mode
	events *eventLog
	srv    *mcp.Server
	// onGarbage writes junk where the client reads protocol messages; nil
	// for HTTP servers, where the tool just fails.
	onGarbage func()
	// onCrash ends the server abruptly.
	onCrash func()
}

func (ts *testServer) has(m Mode) bool { return slices.Contains(ts.modes, m) }

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo back"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type slowIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to take"`
}

type progressIn struct {
	Steps int `json:"steps"`
}

type idIn struct {
	ID string `json:"id,omitempty" jsonschema:"identifies the call in the events file"`
}

type bigIn struct {
	Bytes int `json:"bytes"`
}

type nameIn struct {
	Name string `json:"name"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// build makes the go-sdk server for the given modes.
func (ts *testServer) build() *mcp.Server {
	opts := &mcp.ServerOptions{
		Instructions: "Switchboard test server: use echo to check the connection.",
	}
	if ts.has(ModePaginate) {
		opts.PageSize = 10
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.2.3"}, opts)
	ts.srv = s
	ro := true
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ro}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Report the process id and the value of " + EnvSecret + "."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprintf("pid=%d secret=%s", os.Getpid(), os.Getenv(EnvSecret))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always reports a tool error."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			r := text("it broke")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Answer after ms milliseconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("done"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Report steps progress notifications, then answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps && tok != nil; i++ {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
				})
			}
			return text(fmt.Sprintf("token=%v", tok != nil)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers; records cancellation."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			ts.events.add("hang", in.ID)
			<-ctx.Done()
			ts.events.add("cancelled", in.ID)
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Kills the server mid-call."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			ts.events.add("crash")
			if ts.onCrash != nil {
				ts.onCrash()
			}
			return nil, nil, fmt.Errorf("crash requested")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Writes non-protocol bytes to stdout mid-session."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			if ts.onGarbage != nil {
				ts.onGarbage()
			}
			return text("garbage written"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text block of the given size."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "rich", Description: "Returns one block of every content kind."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "hello"},
				&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "doc body"}},
				&mcp.ResourceLink{URI: "test://other", Name: "other", MIMEType: "text/plain"},
			}, StructuredContent: map[string]any{"ok": true}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "register", Description: "Registers a new tool named name (sends list_changed)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Name, Description: "registered late"},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text("late " + in.Name), nil, nil
				})
			return text("registered"), nil, nil
		})
	ts.addSampleTool(s)
	ts.addRootsTool(s)
	mcp.AddTool(s, &mcp.Tool{Name: "elicit", Description: "Asks the user for a name (elicitation)."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["e"].(*mcp.ElicitResult); ok {
				return text(fmt.Sprintf("action=%s name=%v", r.Action, r.Content["name"])), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"e": &mcp.ElicitParams{
				Message: "What is your name?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required":   []string{"name"},
				},
			}}}, nil, nil
		})
	if ts.has(ModePaginate) {
		for i := range 25 {
			mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("t%02d", i)},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text("ok"), nil, nil
				})
		}
	}
	s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "A test resource."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: `{"item":true}`}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "greeting", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["who"]}},
			}}, nil
		})
	if ts.has(ModeCrashAfterStart) {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "tools/list" && ts.onCrash != nil {
					go func() {
						time.Sleep(50 * time.Millisecond) // let the answer reach the client first
						ts.onCrash()
					}()
				}
				return res, err
			}
		})
	}
	if ts.has(ModeNoDiscover) {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				ts.events.add("method", method)
				if method == "server/discover" {
					ts.events.add("discover-exit")
					os.Exit(4)
				}
				return next(ctx, method, req)
			}
		})
	}
	return s
}

// addSampleTool adds the tool that asks the client's model via sampling.
//
//nolint:staticcheck // sampling is deprecated in 2026-07-28 but Switchboard still serves it
func (ts *testServer) addSampleTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client's model (sampling) and returns its answer."},
		func(_ context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			switch r := req.Params.InputResponses["s"].(type) {
			case *mcp.CreateMessageResult:
				if tc, ok := r.Content.(*mcp.TextContent); ok {
					return text("model " + r.Model + " said: " + tc.Text), nil, nil
				}
				return text("model answered without text"), nil, nil
			case *mcp.CreateMessageWithToolsResult:
				for _, c := range r.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						return text("model " + r.Model + " said: " + tc.Text), nil, nil
					}
				}
				return text("model answered without text"), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s": &mcp.CreateMessageParams{
				Messages:         []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}},
				SystemPrompt:     "be brief",
				MaxTokens:        100,
				ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "small"}}, SpeedPriority: 1},
			}}}, nil, nil
		})
}

// addRootsTool adds the tool that lists the client's roots.
//
//nolint:staticcheck // roots are deprecated in 2026-07-28 but Switchboard still advertises them
func (ts *testServer) addRootsTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["r"].(*mcp.ListRootsResult); ok {
				var uris []string
				for _, root := range r.Roots {
					uris = append(uris, root.URI)
				}
				return text(strings.Join(uris, " ")), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}}, nil, nil
		})
}
