package sse_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/sse"
)

func ExampleEvents() {
	body := "event: greeting\ndata: hello\ndata: world\n\n: a comment\n\ndata: [DONE]\n\n"
	for ev, err := range sse.Events(strings.NewReader(body), nil) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%q %q\n", ev.Type, ev.Data)
	}
	// Output:
	// "greeting" "hello\nworld"
	// "" "[DONE]"
}

func ExampleWriteEvent() {
	// An http.ResponseWriter is flushed after each event.
	if err := sse.WriteEvent(os.Stdout, "delta", []byte("two\nlines")); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// event: delta
	// data: two
	// data: lines
}
