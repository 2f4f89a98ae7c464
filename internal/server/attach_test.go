package server

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// pngBytes is the start of a PNG file: enough for content sniffing.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

// TestPostMessageImages checks attached images reach the run as parts of
// the user's message, and that images that are not what they claim, of a
// type no vision API takes, or too many, are refused with a 400.
func TestPostMessageImages(t *testing.T) {
	e := newEnv(t, nil)
	var got []llm.Part
	e.runner.run = func(_ context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		got = req.Attachments
		return events(doneEvent(req.RunID))
	}
	conv := e.createConversation(t)
	path := "/api/v1/conversations/" + conv + "/messages"
	sseHdr := http.Header{"Accept": {"text/event-stream"}}
	resp := e.send(t, http.MethodPost, path, e.key, map[string]any{"message": "what is this?", "images": []any{map[string]any{"mimeType": "image/png", "data": pngBytes}}}, sseHdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("posting an image: status %d", resp.StatusCode)
	}
	readEvents(t, resp.Body, nil)
	resp.Body.Close()
	if diff := cmp.Diff([]llm.Part{llm.ImagePart("image/png", pngBytes)}, got); diff != "" {
		t.Errorf("attachments mismatch (-want +got):\n%s", diff)
	}

	many := make([]any, maxImages+1)
	for i := range many {
		many[i] = map[string]any{"mimeType": "image/png", "data": pngBytes}
	}
	bad := []struct {
		name   string
		images []any
		want   string
	}{
		{"claims png, is text", []any{map[string]any{"mimeType": "image/png", "data": []byte("<svg onload=alert(1)>")}}, "is not a image/png image"},
		{"svg", []any{map[string]any{"mimeType": "image/svg+xml", "data": []byte("<svg/>")}}, "is not accepted"},
		{"empty", []any{map[string]any{"mimeType": "image/png"}}, "data is empty"},
		{"too many", many, "at most 8"},
		{"not base64", []any{map[string]any{"mimeType": "image/png", "data": "%%%"}}, "not"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			resp := e.send(t, http.MethodPost, path, e.key, map[string]any{"message": "x", "images": tc.images}, sseHdr)
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
				t.Errorf("status %d body %s, want 400 saying %q", resp.StatusCode, body, tc.want)
			}
			if got != nil {
				t.Errorf("the run started with %v", got)
			}
		})
	}
}
