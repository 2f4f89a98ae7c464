package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ErrInvalidField reports an event type or id that contains a line break,
// which would corrupt the stream.
var ErrInvalidField = errors.New("sse field contains a line break")

// WriteEvent writes one event with the given type (empty for none) and
// data, then flushes w if it can flush (http.ResponseWriter does). Data with
// line breaks is sent as several data lines, so the client's decoder
// rebuilds it exactly (CRLF and CR become LF).
func WriteEvent(w io.Writer, event string, data []byte) error {
	return Write(w, Event{Type: event, Data: data})
}

// Write writes ev (type, id, retry and data) and flushes w if it can flush.
// ev.ID is written when not empty.
func Write(w io.Writer, ev Event) error {
	if strings.ContainsAny(ev.Type, "\r\n") || strings.ContainsAny(ev.ID, "\r\n") {
		return ErrInvalidField
	}
	var b bytes.Buffer
	b.Grow(len(ev.Data) + len(ev.Type) + 32)
	if ev.Type != "" {
		b.WriteString("event: ")
		b.WriteString(ev.Type)
		b.WriteByte('\n')
	}
	if ev.ID != "" {
		b.WriteString("id: ")
		b.WriteString(ev.ID)
		b.WriteByte('\n')
	}
	if ev.Retry > 0 {
		b.WriteString("retry: ")
		b.WriteString(strconv.FormatInt(ev.Retry.Milliseconds(), 10))
		b.WriteByte('\n')
	}
	data := ev.Data
	for {
		i := indexEOL(data)
		line := data
		if i >= 0 {
			line = data[:i]
		}
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
		if i < 0 {
			break
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b.WriteByte('\n')
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	return flush(w)
}

// WriteComment writes a comment line, which clients ignore: a keep-alive
// that stops proxies and idle timeouts from closing a quiet stream.
func WriteComment(w io.Writer, text string) error {
	text = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(text)
	if _, err := io.WriteString(w, ": "+text+"\n\n"); err != nil {
		return err
	}
	return flush(w)
}

func flush(w io.Writer) error {
	switch f := w.(type) {
	case interface{ FlushError() error }:
		return f.FlushError()
	case interface{ Flush() error }: // bufio.Writer
		return f.Flush()
	case interface{ Flush() }: // http.Flusher
		f.Flush()
	}
	return nil
}
