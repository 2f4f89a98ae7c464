package stdio

import "bytes"

// This file classifies lines read from a stdio server without decoding
// them: which top-level keys a JSON-RPC message has and where their values
// are. It validates only the structure it walks (strings, brackets,
// separators); the decoders that later read a value check the rest.

// frame is what scanFrame found in one message. The slices alias the input.
type frame struct {
	jsonrpc []byte // raw value of "jsonrpc"
	id      []byte // raw value of "id"
	method  []byte // raw value of "method" (a JSON string with its quotes)
	params  []byte // raw value of "params"
	result  bool   // has "result"
	error   bool   // has "error"
	// partial is set when the input ended inside the object: scanFrame was
	// given the first part of a long line. Only keys whose values ended
	// before the cut are recorded.
	partial bool
}

// isJSONRPC reports whether f is a JSON-RPC 2.0 message: a request, a
// notification or a response.
func (f *frame) isJSONRPC() bool {
	return string(f.jsonrpc) == `"2.0"` && (len(f.method) > 0 || len(f.id) > 0 && (f.result || f.error))
}

// isResponse reports whether f is a response (not a request or notification).
func (f *frame) isResponse() bool { return len(f.method) == 0 && len(f.id) > 0 }

// scanFrame walks the top-level object in b. ok is false when b does not
// hold a JSON object (a banner, a log line, a truncated or broken message).
// With prefix set, b may be the first part of a longer message: running out
// of input inside the object then gives ok with f.partial.
func scanFrame(b []byte, prefix bool) (f frame, ok bool) {
	f.partial, ok = walkObject(b, prefix, func(key, v []byte) {
		switch string(key) {
		case "jsonrpc":
			f.jsonrpc = v
		case "id":
			f.id = v
		case "method":
			f.method = v
		case "params":
			f.params = v
		case "result":
			f.result = true
		case "error":
			f.error = true
		}
	})
	return f, ok
}

// objectField returns the raw value of key in the JSON object b, or nil.
func objectField(b []byte, key string) []byte {
	var out []byte
	walkObject(b, false, func(k, v []byte) {
		if out == nil && string(k) == key {
			out = v
		}
	})
	return out
}

// walkObject calls visit with each top-level key (raw, without quotes) and
// raw value of the object in b. A value cut off by the end of b is visited
// with nil when prefix is set, so a caller learns that the key began.
// partial reports that b ended inside the object; ok that b holds an
// object (or, with prefix, the start of one).
func walkObject(b []byte, prefix bool, visit func(key, v []byte)) (partial, ok bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return false, len(bytes.TrimSpace(b[i+1:])) == 0
	}
	for {
		if i == len(b) {
			return true, prefix
		}
		if b[i] != '"' {
			return false, false
		}
		kend := skipString(b, i)
		if kend < 0 {
			return true, prefix
		}
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i == len(b) {
			return true, prefix
		}
		if b[i] != ':' {
			return false, false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			if prefix && vend == errTruncated {
				visit(key, nil)
				return true, true
			}
			return false, false
		}
		visit(key, b[i:vend])
		i = skipSpace(b, vend)
		if i == len(b) {
			return true, prefix
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return false, len(bytes.TrimSpace(b[i+1:])) == 0
		default:
			return false, false
		}
	}
}

// skipValue returns the index just past the JSON value starting at b[i],
// errTruncated when b ends inside it, or errMalformed.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return errTruncated
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipComposite(b, i)
	default:
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		if j == i {
			return errMalformed
		}
		if j == len(b) {
			return errTruncated // a number may go on in the next part
		}
		return j
	}
}

const (
	errTruncated = -1
	errMalformed = -2
)

// skipString returns the index just past the string starting at b[i] (a
// '"'), or errTruncated. It looks for quotes with bytes.IndexByte, so a long
// string costs a few machine-word scans, not a loop per byte.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return errTruncated
		}
		j += k
		// The quote ends the string unless an odd number of backslashes precedes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipComposite returns the index just past the object or array starting
// at b[i], matching brackets and skipping strings.
func skipComposite(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end := skipString(b, j)
			if end < 0 {
				return end
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return errTruncated
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// splitBatch returns the elements of a JSON array of objects (a JSON-RPC
// batch, which servers of protocol 2025-03-26 may send), or false when b is
// not one.
func splitBatch(b []byte) ([][]byte, bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return nil, false
	}
	var out [][]byte
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil, false // an empty batch is invalid
	}
	for i < len(b) {
		end := skipValue(b, i)
		if end < 0 || b[i] != '{' {
			return nil, false
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i == len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return out, len(bytes.TrimSpace(b[i+1:])) == 0
		default:
			return nil, false
		}
	}
	return nil, false
}
