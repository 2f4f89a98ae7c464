package tools

import "encoding/json"

// simpleSchema is an input schema that only lists typed properties: an
// object whose properties each have one JSON type, some of them required,
// others perhaps forbidden, and nothing else but annotations. Most tools'
// schemas are like this, and checking one against the parsed arguments
// directly took a fraction of jsonschema's time (validation was 4% of a
// proxied call's CPU). It only ever says "valid": anything it is not sure
// of, it leaves to the compiled schema, whose verdict and messages stand
// (TestSimpleSchemaAgreesWithJSONSchema).
type simpleSchema struct {
	props    map[string]string // property name -> JSON type
	required []string
	closed   bool // additionalProperties: false
}

// isAnnotation reports whether keyword k asserts nothing.
func isAnnotation(k string) bool {
	switch k {
	case "description", "title", "$comment", "examples", "default":
		return true
	}
	return false
}

// compileSimple returns schema as a simpleSchema, or nil when it uses
// anything else.
func compileSimple(schema []byte) *simpleSchema {
	var root map[string]json.RawMessage
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	s := &simpleSchema{props: map[string]string{}}
	for k, v := range root {
		switch k {
		case "type":
			if string(v) != `"object"` {
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				t, ok := simpleType(p)
				if !ok {
					return nil
				}
				s.props[name] = t
			}
		case "required":
			if json.Unmarshal(v, &s.required) != nil {
				return nil
			}
		case "additionalProperties":
			switch string(v) {
			case "false":
				s.closed = true
			case "true":
			default:
				return nil
			}
		case "$schema":
		default:
			if !isAnnotation(k) {
				return nil
			}
		}
	}
	return s
}

// simpleType returns the one type a property schema asserts, when it
// asserts nothing else.
func simpleType(p map[string]json.RawMessage) (string, bool) {
	var t string
	for k, v := range p {
		switch {
		case k == "type":
			if json.Unmarshal(v, &t) != nil {
				return "", false
			}
		case !isAnnotation(k):
			return "", false
		}
	}
	switch t {
	case "string", "number", "integer", "boolean", "null", "object", "array":
		return t, true
	}
	return "", false
}

// valid reports that inst, as parseArgs decodes arguments, is valid; false
// means the compiled schema must decide.
func (s *simpleSchema) valid(inst any) bool {
	obj, ok := inst.(map[string]any)
	if !ok {
		return false
	}
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for k, v := range obj {
		t, ok := s.props[k]
		switch {
		case !ok:
			if s.closed {
				return false
			}
		case !hasType(v, t):
			return false
		}
	}
	return true
}

// hasType reports whether v is certainly of JSON type t. An integer is
// only one written with digits alone: 1.0 and 1e2 are left to jsonschema.
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case nil:
		return t == "null"
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case json.Number:
		switch t {
		case "number":
			return true
		case "integer":
			return plainInteger(string(v))
		}
	}
	return false
}

func plainInteger(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
