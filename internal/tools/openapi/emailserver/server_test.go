package emailserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	return resp.StatusCode, out
}

// ids lists the ids of a read-emails answer.
func ids(out map[string]any) []string {
	var got []string
	list, _ := out["emails"].([]any)
	for _, e := range list {
		got = append(got, e.(map[string]any)["id"].(string))
	}
	return got
}

func TestReadEmails(t *testing.T) {
	ts := httptest.NewServer(New())
	defer ts.Close()
	tests := []struct {
		body      string
		want      []string
		wantTotal float64
	}{
		{``, []string{"msg-1", "msg-2", "msg-3", "msg-4", "msg-5"}, 5},
		{`{"limit": 2}`, []string{"msg-1", "msg-2"}, 5},
		{`{"limit": "2", "sender": "", "subject_contains": "", "unread_only": ""}`, []string{"msg-1", "msg-2"}, 5},
		{`{"sender": "ALICE"}`, []string{"msg-1", "msg-4"}, 2},
		{`{"subject_contains": "invoice"}`, []string{"msg-3"}, 1},
		{`{"unread_only": true, "limit": 2}`, []string{"msg-1", "msg-2"}, 3},
		{`{"unread_only": "true", "sender": "example.org"}`, []string{"msg-5"}, 1},
		{`{"sender": "nobody"}`, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			code, out := post(t, ts.URL+"/read-emails", "", tt.body)
			if code != http.StatusOK {
				t.Fatalf("status %d: %v", code, out)
			}
			if diff := cmp.Diff(tt.want, ids(out)); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
			if out["total"] != tt.wantTotal || out["count"] != float64(len(tt.want)) {
				t.Errorf("count %v total %v, want %d and %v", out["count"], out["total"], len(tt.want), tt.wantTotal)
			}
		})
	}
	for _, bad := range []string{`{"limit": 0}`, `{"limit": "two"}`, `{"unread_only": "maybe"}`, `[1]`} {
		if code, _ := post(t, ts.URL+"/read-emails", "", bad); code != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", bad, code)
		}
	}
}

func TestSendEmail(t *testing.T) {
	at := time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
	s := NewWithOptions(&Options{Now: func() time.Time { return at }})
	ts := httptest.NewServer(s)
	defer ts.Close()
	code, out := post(t, ts.URL+"/send-email", "", `{"to": "john@example.com", "subject": "Hi", "body": "Hello", "cc": "", "bcc": "x@example.com"}`)
	if code != http.StatusOK || out["status"] != "sent" || out["id"] != "sent-1" {
		t.Fatalf("status %d: %v", code, out)
	}
	want := []Message{{ID: "sent-1", From: "me@example.com", To: "john@example.com", Bcc: "x@example.com", Subject: "Hi", Body: "Hello", Date: at}}
	if diff := cmp.Diff(want, s.Sent()); diff != "" {
		t.Errorf("sent mismatch (-want +got):\n%s", diff)
	}
	code, _ = post(t, ts.URL+"/send-email", "", `{"to": ["a@example.com", "b@example.com"], "subject": 7}`)
	if sent := s.Sent(); code != http.StatusOK || len(sent) != 2 || sent[1].To != "a@example.com, b@example.com" || sent[1].Subject != "7" {
		t.Errorf("list recipients: status %d, sent %+v", code, sent)
	}
	for _, bad := range []string{`{}`, `{"to": ""}`, `{"to": "john"}`, `{"to": "a@b", "cc": "nope"}`, `{"to": [1]}`, `{"to": {"a": 1}}`} {
		if code, out := post(t, ts.URL+"/send-email", "", bad); code != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d (%v), want 422", bad, code, out)
		}
	}
	if len(s.Sent()) != 2 || len(s.Inbox()) != 5 {
		t.Errorf("mailbox changed by rejected requests: %d sent, %d inbox", len(s.Sent()), len(s.Inbox()))
	}
}

func TestBearer(t *testing.T) {
	ts := httptest.NewServer(NewWithOptions(&Options{Bearer: "tok"}))
	defer ts.Close()
	if code, _ := post(t, ts.URL+"/read-emails", "", `{}`); code != http.StatusUnauthorized {
		t.Errorf("without token: %d, want 401", code)
	}
	if code, _ := post(t, ts.URL+"/read-emails", "wrong", `{}`); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	if code, _ := post(t, ts.URL+"/read-emails", "tok", `{}`); code != http.StatusOK {
		t.Errorf("right token: %d, want 200", code)
	}
	resp, err := http.Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("document: %d, want 200 without a token", resp.StatusCode)
	}
}
