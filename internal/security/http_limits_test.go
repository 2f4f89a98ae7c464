package security

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPSlowBodyCut: a client that sends a request body slowly
// (slowloris) is cut off after server.bodyReadTimeout with 408, instead
// of holding a handler for as long as it likes.
func TestHTTPSlowBodyCut(t *testing.T) {
	dir := project(t, "server:\n  bodyReadTimeout: 300ms\n")
	s := serve(t, dir)
	conn, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := strings.TrimPrefix(s.base, "http://")
	fmt.Fprintf(conn, "POST /api/v1/conversations HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", host)
	// Trickle a byte now and then, never finishing the body.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response to a slow body within 10s: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("slow body = %s; want 408", resp.Status)
	}
}

// TestHTTPStreamCapPerUser: each user may hold at most
// server.maxStreamsPerUser open chat streams; one more gets a clear 429,
// and a slot frees when a stream ends. Another user is not affected.
func TestHTTPStreamCapPerUser(t *testing.T) {
	hold := make(chan struct{})
	model := newFakeModel(t, hold)
	dir := project(t, modelConfig(model.URL)+"server:\n  maxStreamsPerUser: 1\n")
	bob := addUser(t, dir, "bob", "--allow", "calculator")
	ann := addUser(t, dir, "ann", "--allow", "calculator")
	s := serve(t, dir)

	chat := `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	open := func(ctx context.Context, key string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/v1/chat/completions", strings.NewReader(chat))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("chat request: %v", err)
			}
			return nil
		}
		return resp
	}
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan *http.Response, 1)
	go func() { first <- open(ctx, bob) }()
	select {
	case <-model.arrived: // the first stream holds its slot while the model thinks
	case <-time.After(10 * time.Second):
		t.Fatal("the first chat never reached the model")
	}
	resp := open(t.Context(), bob)
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body[:n]), "streams") {
		t.Errorf("second stream of bob = %s %s; want 429 naming the stream cap", resp.Status, body[:n])
	}
	// Ann has her own slots.
	annCtx, annCancel := context.WithCancel(t.Context())
	annDone := make(chan *http.Response, 1)
	go func() { annDone <- open(annCtx, ann) }()
	select {
	case <-model.arrived:
	case r := <-annDone:
		if r != nil {
			r.Body.Close()
			t.Errorf("ann's stream = %s; want it to reach the model", r.Status)
		}
	case <-time.After(10 * time.Second):
		t.Error("ann's chat never reached the model")
	}
	annCancel()
	// Bob's first stream ends; his next one is accepted.
	cancel()
	if r := <-first; r != nil {
		r.Body.Close()
	}
	close(hold)
	eventually(t, "bob's slot frees", func() bool {
		r := open(t.Context(), bob)
		if r == nil {
			return false
		}
		defer r.Body.Close()
		return r.StatusCode == 200
	})
}

// TestHTTPBodyDeadlineSparesStreams: the body read deadline ends when the
// body is read; a chat stream that lasts longer than the deadline (the
// model thinks) completes.
func TestHTTPBodyDeadlineSparesStreams(t *testing.T) {
	hold := make(chan struct{})
	model := newFakeModel(t, hold)
	dir := project(t, modelConfig(model.URL)+"server:\n  bodyReadTimeout: 200ms\n")
	s := serve(t, dir)
	for _, stream := range []bool{true, false} {
		body := fmt.Sprintf(`{"model":"default","stream":%v,"messages":[{"role":"user","content":"slow %v"}]}`, stream, stream)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		done := make(chan string, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			done <- resp.Status + " " + string(b)
		}()
		select {
		case <-model.arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("the chat never reached the model")
		}
		// Let the deadline pass several times over while the model thinks.
		select {
		case got := <-done:
			t.Fatalf("stream=%v ended while the model was thinking: %s", stream, got)
		case <-time.After(time.Second):
		}
		hold <- struct{}{}
		if got := <-done; !strings.HasPrefix(got, "200") || !strings.Contains(got, "You said: slow") {
			t.Errorf("stream=%v after the deadline = %s; want 200 with the answer", stream, got)
		}
	}
}
