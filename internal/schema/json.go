package schema

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// object is a JSON object that keeps its keys in order, so a converted
// schema lists properties in the order the tool author wrote them (models
// tend to fill arguments in that order). Values are *object, []any, string,
// json.Number, bool or nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) has(k string) bool { _, ok := o.vals[k]; return ok }

// set replaces the value of k, or appends k when it is new.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// setFirst sets k and moves it to the front.
func (o *object) setFirst(k string, v any) {
	o.del(k)
	o.keys = append([]string{k}, o.keys...)
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

func (o *object) obj(k string) *object {
	m, _ := o.vals[k].(*object)
	return m
}

// clone copies o one level deep.
func (o *object) clone() *object {
	c := &object{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// encode appends the JSON text of v to b.
func encode(b []byte, v any) []byte {
	switch t := v.(type) {
	case *object:
		b = append(b, '{')
		for i, k := range t.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = encode(b, t.vals[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = encode(b, e)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, t)
	case json.Number:
		return append(b, t...)
	case bool:
		return strconv.AppendBool(b, t)
	case nil:
		return append(b, "null"...)
	default:
		// Only the types above are ever stored; anything else is a bug,
		// encoded as null rather than panicking.
		return append(b, "null"...)
	}
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, replacing invalid UTF-8 with
// U+FFFD and leaving <, > and & unescaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
