package openapi

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// TestEmailServer runs the example e-mail action server end to end:
// discovery, the generated tools, and the calls a model makes for "check my
// 2 latest emails" and "send an email to john".
func TestEmailServer(t *testing.T) {
	mail := emailserver.NewWithOptions(&emailserver.Options{Bearer: "tok"})
	ts := startServer(t, mail)
	s := loaded(t, &Options{URL: ts.URL, Bearer: "tok"})

	if diff := cmp.Diff([]string{"read-emails", "send-email"}, toolNames(s.Tools())); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	read := findTool(t, s, "read-emails")
	send := findTool(t, s, "send-email")
	if !read.Info().Annotations.ReadOnly() || !send.Info().Annotations.Destructive() {
		t.Errorf("annotations: read %+v, send %+v", read.Info().Annotations, send.Info().Annotations)
	}
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(send.Info().InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"to"}, schema.Required); diff != "" || len(schema.Properties) != 5 {
		t.Errorf("send-email schema %s", send.Info().InputSchema)
	}

	res := callTool(t, read, `{"limit": 2}`)
	var got struct {
		Emails []emailserver.Message `json:"emails"`
		Count  int                   `json:"count"`
	}
	if res.IsError || json.Unmarshal(res.Structured, &got) != nil {
		t.Fatalf("read-emails: %s", res.Text())
	}
	if got.Count != 2 || got.Emails[0].ID != "msg-1" || got.Emails[1].ID != "msg-2" {
		t.Errorf("read-emails limit 2 = %+v", got)
	}

	res = callTool(t, send, `{"to": "john@example.com", "subject": "Test", "body": "Hello"}`)
	if res.IsError {
		t.Fatalf("send-email: %s", res.Text())
	}
	if sent := mail.Sent(); len(sent) != 1 || sent[0].To != "john@example.com" || sent[0].Subject != "Test" {
		t.Errorf("sent = %+v", sent)
	}

	res = callTool(t, send, `{"to": ""}`)
	want := &tools.Result{IsError: true, Content: []tools.Content{{
		Type: tools.ContentText,
		Text: `HTTP 422 Unprocessable Entity from POST /send-email: {"detail":"to is required: give at least one recipient address"}`,
	}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("send-email without recipient mismatch (-want +got):\n%s", diff)
	}
}
