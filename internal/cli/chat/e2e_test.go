package chat

import (
	"context"
	"io"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
)

// screen is what the program wrote to b, without its ANSI sequences.
func screen(b *clitest.Buffer) string { return ansi.Strip(b.String()) }

// TestRunTUIProgram runs the real bubbletea program on in-memory input
// and output: it types a message, sees the streamed answer, and quits
// with ctrl+c.
func TestRunTUIProgram(t *testing.T) {
	fb := &fakeBackend{run: func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			for _, ev := range []agent.Event{text("The answer "), text("is **forty-two**."), done()} {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}}
	in, typed := io.Pipe()
	var out, errw clitest.Buffer
	errc := make(chan error, 1)
	go func() {
		errc <- RunTUI(t.Context(), fb, &Options{Stdin: in, Stdout: &out, Stderr: &errw, Width: 100, NewConversationID: func() string { return "c1" }})
	}()
	defer typed.Close() // ends the program's blocked read of the pipe

	waitFor(t, "the prompt", func() bool { return strings.Contains(screen(&out), "Ask anything") }, func() string { return screen(&out) })
	io.WriteString(typed, "what is it?")
	io.WriteString(typed, "\r")
	waitFor(t, "the answer", func() bool { return strings.Contains(screen(&out), "is forty-two.") })
	if s := screen(&out); !strings.Contains(s, "what is it?") {
		t.Errorf("the output does not show the message typed:\n%s", s)
	}
	// ctrl+c with nothing running quits. The answer's text can show a
	// moment before the program handles the turn's end; a ctrl+c in that
	// moment cancels the turn and says so, and a second one quits.
	io.WriteString(typed, "\x03")
	var err error
	select {
	case err = <-errc:
	case <-time.After(2 * time.Second):
		if strings.Contains(screen(&out), "ctrl+c again quits") {
			io.WriteString(typed, "\x03")
		}
		select {
		case err = <-errc:
		case <-time.After(30 * time.Second):
			t.Fatalf("ctrl+c did not end the program:\n%s", screen(&out))
		}
	}
	if err != nil {
		t.Fatalf("RunTUI: %v", err)
	}
	if diff := cmp.Diff("conversation c1: continue with --conversation c1\n", screen(&errw)); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	if _, reqs := fb.recorded(); len(reqs) != 1 || reqs[0].Message != "what is it?" || reqs[0].ConversationID != "c1" {
		t.Errorf("requests = %+v, want one message in conversation c1", reqs)
	}
}

// TestRunTUICancelledContext ends the program when the caller's context
// ends (SIGINT through signal.NotifyContext) while a turn runs, and the
// turn is cancelled and waited for.
func TestRunTUICancelledContext(t *testing.T) {
	started := make(chan struct{})
	sawCancel := make(chan struct{})
	fb := &fakeBackend{run: func(ctx context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			close(started)
			<-ctx.Done()
			close(sawCancel)
			yield(agent.Event{}, ctx.Err())
		}
	}}
	ctx, cancel := context.WithCancel(t.Context())
	in, typed := io.Pipe()
	defer typed.Close()
	var out clitest.Buffer
	errc := make(chan error, 1)
	go func() { errc <- RunTUI(ctx, fb, &Options{Stdin: in, Stdout: &out}) }()
	waitFor(t, "the prompt", func() bool { return strings.Contains(screen(&out), "Ask anything") }, func() string { return screen(&out) })
	io.WriteString(typed, "work\r")
	<-started
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("RunTUI after cancel: %v", err)
	}
	select {
	case <-sawCancel:
	default:
		t.Fatal("RunTUI returned before the turn saw its context cancelled")
	}
}
