package stdio

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// fastResult decodes the commonest answer to a tools/call without
// reflection: a message of only jsonrpc, id and result, whose result holds
// only content made of text blocks (type and text) and isError. On the
// gateway's hot path encoding/json spent more on such a line (13
// allocations, most of them its own) than the rest of the reader did.
//
// It accepts only what it has fully checked, and reports false for
// anything else (another key anywhere, a key spelled another way, a
// malformed value), which deliver then decodes with encoding/json: so
// every line it accepts decodes to what encoding/json would make of it
// (TestFastResultAsEncodingJSON, FuzzFastResult).
func fastResult(line []byte) (*tools.Result, bool) {
	var (
		result                []byte
		seen, unsure, rpc, id bool
	)
	partial, ok := walkObject(line, false, func(key, v []byte) {
		switch string(key) {
		case "jsonrpc":
			unsure = unsure || rpc || string(v) != `"2.0"`
			rpc = true
		case "id":
			_, isCall := parseCallID(v)
			unsure = unsure || id || !isCall
			id = true
		case "result":
			unsure = unsure || seen // a second one merges into the first
			seen, result = true, v
		default:
			unsure = true
		}
	})
	if !ok || partial || unsure || !seen || !rpc || !id {
		return nil, false
	}
	var (
		content          []byte
		isError, hasList bool
	)
	partial, ok = walkObject(result, false, func(key, v []byte) {
		switch {
		case string(key) == "content" && !hasList:
			hasList, content = true, v
		case string(key) == "isError" && string(v) == "true":
			isError = true
		case string(key) == "isError" && string(v) == "false":
			isError = false
		default:
			unsure = true
		}
	})
	if !ok || partial || unsure {
		return nil, false
	}
	res := &tools.Result{IsError: isError}
	if !hasList {
		res.Content = []tools.Content{}
		return res, true
	}
	res.Content = make([]tools.Content, 0, 1)
	ok = walkArray(content, func(block []byte) bool {
		text, ok := textBlock(block)
		res.Content = append(res.Content, tools.Content{Type: tools.ContentText, Text: text})
		return ok
	})
	return res, ok
}

// textBlock decodes {"type":"text","text":"..."} (keys in either order,
// text optional), or reports false.
func textBlock(b []byte) (string, bool) {
	var (
		text                   string
		typed, hasText, unsure bool
	)
	partial, ok := walkObject(b, false, func(key, v []byte) {
		switch {
		case string(key) == "type" && !typed && string(v) == `"text"`:
			typed = true
		case string(key) == "text" && !hasText:
			hasText = true
			var ok bool
			if text, ok = jsonString(v); !ok {
				unsure = true
			}
		default:
			unsure = true
		}
	})
	return text, ok && !partial && typed && !unsure
}

// jsonString decodes the JSON string v (with its quotes). One without
// escapes or control characters, in valid UTF-8, is its bytes; anything
// else is left to encoding/json, which also replaces invalid UTF-8.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	plain := bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)
	for i := 0; plain && i < len(inner); i++ {
		plain = inner[i] >= 0x20
	}
	if plain {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// walkArray calls visit with each element of the JSON array b until visit
// reports false, and reports whether b is one array it walked whole.
func walkArray(b []byte, visit func(elem []byte) bool) bool {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return len(bytes.TrimSpace(b[i+1:])) == 0
	}
	for i < len(b) {
		end := skipValue(b, i)
		if end < 0 || !visit(b[i:end]) {
			return false
		}
		i = skipSpace(b, end)
		if i == len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return len(bytes.TrimSpace(b[i+1:])) == 0
		default:
			return false
		}
	}
	return false
}
