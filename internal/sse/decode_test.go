package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// collect decodes all of r, copying each event's data.
func collect(r io.Reader, opts *DecoderOptions) ([]Event, error) {
	var evs []Event
	for ev, err := range Events(r, opts) {
		if err != nil {
			return evs, err
		}
		ev.Data = bytes.Clone(ev.Data)
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Event
	}{
		{"one", "data: hello\n\n", []Event{{Data: []byte("hello")}}},
		{"no space after colon", "data:hello\n\n", []Event{{Data: []byte("hello")}}},
		{"only the first space is removed", "data:  two\n\n", []Event{{Data: []byte(" two")}}},
		{"multi-line data", "data: a\ndata: b\ndata:\n\n", []Event{{Data: []byte("a\nb\n")}}},
		{"event type", "event: message_start\ndata: {}\n\n", []Event{{Type: "message_start", Data: []byte("{}")}}},
		{"crlf", "event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []Event{{Type: "x", Data: []byte("1")}, {Data: []byte("2")}}},
		{"cr only", "data: 1\r\rdata: 2\r\r", []Event{{Data: []byte("1")}, {Data: []byte("2")}}},
		{"comments ignored", ": keep-alive\n\n: x\ndata: y\n\n", []Event{{Data: []byte("y")}}},
		{"id persists", "id: 7\ndata: a\n\ndata: b\n\n", []Event{{ID: "7", Data: []byte("a")}, {ID: "7", Data: []byte("b")}}},
		{"retry", "retry: 1500\ndata: a\n\nretry: x\ndata: b\n\n", []Event{{Retry: 1500 * time.Millisecond, Data: []byte("a")}, {Data: []byte("b")}}},
		{"event without data is not dispatched", "event: ping\n\ndata: a\n\n", []Event{{Data: []byte("a")}}},
		{"type does not leak to the next event", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Type: "a", Data: []byte("1")}, {Data: []byte("2")}}},
		{"unknown fields ignored", "foo: bar\ndata\n\n", []Event{{Data: []byte("")}}},
		{"unterminated event dropped", "data: a\n\ndata: b\n", []Event{{Data: []byte("a")}}},
		{"empty", "", nil},
		{"openai done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []Event{{Data: []byte(`{"a":1}`)}, {Data: []byte("[DONE]")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []struct {
				name string
				r    func(string) io.Reader
			}{
				{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
				{"byte by byte", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
				{"half", func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) }},
			} {
				got, err := collect(mode.r(tt.input), nil)
				if err != nil {
					t.Fatalf("%s: decoding %q: %v", mode.name, tt.input, err)
				}
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s: events mismatch (-want +got):\n%s", mode.name, diff)
				}
			}
		})
	}
}

func TestDecodeTooLarge(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"data over several lines", strings.Repeat("data: 0123456789\n", 20) + "\n"},
		{"one long line", "data: " + strings.Repeat("x", 500) + "\n\n"},
		{"no line ending at all", strings.Repeat("x", 500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := collect(strings.NewReader(tt.input), &DecoderOptions{MaxEventSize: 100})
			if !errors.Is(err, ErrEventTooLarge) {
				t.Errorf("error = %v, want ErrEventTooLarge", err)
			}
		})
	}
}

func TestDecodeReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := collect(r, nil)
	if !errors.Is(err, boom) {
		t.Errorf("error = %v, want boom", err)
	}
	if len(got) != 1 {
		t.Errorf("got %d events before the error, want 1", len(got))
	}
}

func TestDecodeStopsEarly(t *testing.T) {
	n := 0
	for range Events(strings.NewReader("data: a\n\ndata: b\n\ndata: c\n\n"), nil) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("ranged %d times, want 2", n)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	tests := []Event{
		{Data: []byte("plain")},
		{Type: "delta", Data: []byte("line1\nline2\r\nline3\rline4")},
		{Data: []byte("")},
		{Data: []byte("\n\n")},
		{Type: "x", ID: "42", Retry: 3 * time.Second, Data: []byte(`{"a":"b"}`)},
	}
	for _, ev := range tests {
		var b bytes.Buffer
		if err := Write(&b, ev); err != nil {
			t.Fatalf("Write(%+v): %v", ev, err)
		}
		got, err := collect(&b, nil)
		if err != nil {
			t.Fatalf("decoding %q: %v", b.String(), err)
		}
		want := ev
		want.Data = bytes.NewBufferString(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(ev.Data))).Bytes()
		if diff := cmp.Diff([]Event{want}, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
	}
	if err := WriteEvent(io.Discard, "a\nb", nil); !errors.Is(err, ErrInvalidField) {
		t.Errorf("WriteEvent with a line break in the type: error = %v, want ErrInvalidField", err)
	}
}

// FuzzDecode checks that no input panics or hangs, that events respect the
// size limit, and that decoding does not depend on how reads are split.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"data: hello\n\n", "event: a\r\ndata: 1\r\n\r\n", "data: 1\r\rdata: 2\r\r", ": c\n\nid: 1\nretry: 10\ndata: x\n\n",
		"data: [DONE]\n\n", "data", "\r\n\r\n\n", "data: a\ndata: b\n\n", "id: \x00\ndata: z\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		opts := &DecoderOptions{MaxEventSize: 64}
		whole, err1 := collect(bytes.NewReader(in), opts)
		bytewise, err2 := collect(iotest.OneByteReader(bytes.NewReader(in)), opts)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("whole read error %v, byte-by-byte error %v", err1, err2)
		}
		if err1 == nil {
			if diff := cmp.Diff(whole, bytewise, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("split reads changed the events (-whole +bytewise):\n%s", diff)
			}
		}
		for _, ev := range whole {
			if len(ev.Data) > 64 {
				t.Fatalf("event of %d bytes passed a 64-byte limit", len(ev.Data))
			}
		}
	})
}
