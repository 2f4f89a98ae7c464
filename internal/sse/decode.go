package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"
)

// Event is one dispatched event.
type Event struct {
	// Type is the event field; empty when the event had none (the
	// standard's "message").
	Type string
	// Data is the data lines joined with "\n". It aliases the decoder's
	// buffer and is valid only until the next call to Next: copy it to keep it.
	Data []byte
	// ID is the last event ID seen so far in the stream, as the standard
	// defines it (it persists across events until changed).
	ID string
	// Retry is the reconnection time from this event's retry field, zero
	// when it had none.
	Retry time.Duration
}

// DefaultMaxEventSize is the limit on one event's size when
// [DecoderOptions.MaxEventSize] is zero.
const DefaultMaxEventSize = 8 << 20

// lineSlack lets a line hold a field name and the separator on top of
// MaxEventSize bytes of value.
const lineSlack = 64

// ErrEventTooLarge reports an event or line beyond the decoder's limit.
var ErrEventTooLarge = errors.New("sse event too large")

// DecoderOptions configure a [Decoder]. The zero value means defaults.
type DecoderOptions struct {
	// MaxEventSize bounds one event (its data plus one line being read).
	// Zero means DefaultMaxEventSize.
	MaxEventSize int
}

// Decoder reads events from a stream. It is not safe for concurrent use.
type Decoder struct {
	r   io.Reader
	max int

	buf        []byte // read buffer; buf[start:end] is unread
	start, end int
	skipLF     bool  // the last line ended in CR at the end of buf; drop a leading LF
	err        error // sticky read error

	data    []byte // data of the event being built
	hasData bool
	typ     []byte
	lastTyp string // reused when the same event type repeats, to save an allocation
	id      string
	retry   time.Duration
}

// NewDecoder returns a Decoder reading r. opts nil means defaults.
func NewDecoder(r io.Reader, opts *DecoderOptions) *Decoder {
	d := &Decoder{r: r, max: DefaultMaxEventSize}
	if opts != nil && opts.MaxEventSize > 0 {
		d.max = opts.MaxEventSize
	}
	d.buf = make([]byte, min(4096, d.max+lineSlack+2))
	return d
}

// Events returns the events of r as a sequence. It ends at the end of the
// stream; a read error or an event beyond the limit is yielded last. An
// event cut off by the end of the stream (no final blank line) is dropped,
// as the standard says.
func Events(r io.Reader, opts *DecoderOptions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		d := NewDecoder(r, opts)
		for {
			ev, err := d.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a stream cut off mid-event also returns io.EOF, dropping that event.
func (d *Decoder) Next() (Event, error) {
	d.data = d.data[:0]
	d.hasData = false
	d.typ = d.typ[:0]
	d.retry = 0
	for {
		line, err := d.line()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !d.hasData {
				// No data: the standard resets the buffers and dispatches nothing.
				d.typ = d.typ[:0]
				d.retry = 0
				continue
			}
			return Event{Type: d.typeString(), Data: d.data, ID: d.id, Retry: d.retry}, nil
		}
		if err := d.field(line); err != nil {
			return Event{}, err
		}
	}
}

func (d *Decoder) typeString() string {
	if string(d.typ) != d.lastTyp { // the comparison does not allocate
		d.lastTyp = string(d.typ)
	}
	return d.lastTyp
}

// field processes one non-empty line.
func (d *Decoder) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if d.hasData {
			d.data = append(d.data, '\n')
		}
		if len(d.data)+len(value) > d.max {
			return fmt.Errorf("reading sse event: data exceeds %d bytes: %w", d.max, ErrEventTooLarge)
		}
		d.data = append(d.data, value...)
		d.hasData = true
	case "event":
		d.typ = append(d.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			d.id = string(value)
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil && isDigits(value) {
			d.retry = time.Duration(ms) * time.Millisecond
		}
	}
	// Other field names are ignored, as the standard says.
	return nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// line returns the next line without its ending. It aliases d.buf and is
// valid until the next call.
func (d *Decoder) line() ([]byte, error) {
	scanned := 0 // bytes of buf[start:end] already searched for an ending
	for {
		if d.skipLF && d.start < d.end {
			if d.buf[d.start] == '\n' {
				d.start++
			}
			d.skipLF = false
		}
		unread := d.buf[d.start:d.end]
		if i := indexEOL(unread[scanned:]); i >= 0 {
			i += scanned
			if i > d.max+lineSlack {
				return nil, fmt.Errorf("reading sse stream: a line exceeds %d bytes: %w", d.max+lineSlack, ErrEventTooLarge)
			}
			line := unread[:i]
			d.start += i + 1
			if unread[i] == '\r' {
				if i+1 < len(unread) {
					if unread[i+1] == '\n' {
						d.start++
					}
				} else {
					d.skipLF = true
				}
			}
			return line, nil
		}
		scanned = len(unread)
		if d.err != nil {
			return nil, d.err
		}
		if len(unread) > d.max+lineSlack {
			return nil, fmt.Errorf("reading sse stream: a line exceeds %d bytes: %w", d.max+lineSlack, ErrEventTooLarge)
		}
		d.fill()
	}
}

// fill reads more input, compacting or growing the buffer first.
func (d *Decoder) fill() {
	if d.start > 0 {
		n := copy(d.buf, d.buf[d.start:d.end])
		d.start, d.end = 0, n
	}
	if d.end == len(d.buf) {
		nb := make([]byte, min(2*len(d.buf), d.max+lineSlack+2))
		if len(nb) <= len(d.buf) {
			nb = make([]byte, len(d.buf)+1)
		}
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for range 100 {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	d.err = io.ErrNoProgress
}

// indexEOL returns the index of the first CR or LF in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	region := b
	if i >= 0 {
		region = b[:i]
	}
	if j := bytes.IndexByte(region, '\r'); j >= 0 {
		return j
	}
	return i
}
