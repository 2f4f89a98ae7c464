package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Provider names a model API whose tool schemas have their own rules.
type Provider string

const (
	OpenAI    Provider = "openai"
	Anthropic Provider = "anthropic"
	Gemini    Provider = "gemini"
	Ollama    Provider = "ollama"
)

// Change is one thing a conversion altered in a schema: a keyword dropped,
// inlined or rewritten. Changes are for logs and diagnostics; what the model
// needs to know is already folded into the schema's descriptions.
type Change struct {
	// Path is the JSON Pointer, in the input schema, of the schema object
	// that changed ("" is the root).
	Path string `json:"path"`
	// What says what happened, for example `dropped "additionalProperties"`.
	What string `json:"what"`
}

func (c Change) String() string {
	if c.Path == "" {
		return "/: " + c.What
	}
	return c.Path + ": " + c.What
}

// For converts a tool's input schema s for provider p. See [Convert].
func For(p Provider, s json.RawMessage) (json.RawMessage, error) {
	out, _, err := Convert(p, s)
	return out, err
}

// Convert converts a tool's input schema s for provider p and lists what it
// changed. A nil or empty s (no schema) gives an empty object schema. It
// returns an error for an unknown provider, for text that is not JSON, and
// for JSON that is not a schema (an array, string or number). Convert is
// safe for concurrent use and never modifies s.
func Convert(p Provider, s json.RawMessage) (json.RawMessage, []Change, error) {
	switch p {
	case OpenAI, Anthropic, Gemini, Ollama:
	default:
		return nil, nil, fmt.Errorf("converting tool schema: unknown provider %q; use openai, anthropic, gemini or ollama", p)
	}
	var root *object
	trimmed := bytes.TrimSpace(s)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		root = newObject()
	} else {
		v, err := decode(trimmed)
		if err != nil {
			return nil, nil, fmt.Errorf("reading tool schema: %w", err)
		}
		switch t := v.(type) {
		case *object:
			root = t
		case bool:
			// true accepts anything, false nothing; as arguments both mean
			// an object the provider cannot describe further.
			root = newObject()
		default:
			return nil, nil, fmt.Errorf("reading tool schema: got a JSON %s, want a JSON Schema object", jsonType(v))
		}
	}
	c := &conv{root: root}
	top := c.fixTop(root)
	var out any = top
	if p == Gemini {
		out = c.gemini(top, "", 0)
	}
	return encode(make([]byte, 0, len(s)+16), out), c.changes, nil
}

// conv holds the state of one conversion.
type conv struct {
	root    *object // the input, for resolving "$ref"
	changes []Change
	nodes   int            // schema objects produced (Gemini), bounded by maxNodes
	merges  int            // allOf subschemas merged, bounded by maxMerges
	chain   map[string]int // refs being expanded now, and how often (Gemini)
}

func (c *conv) change(path, format string, args ...any) {
	c.changes = append(c.changes, Change{Path: path, What: fmt.Sprintf(format, args...)})
}

// fixTop makes the top of a schema what every provider requires: an object
// schema with properties, without "$schema", and without combinators that
// providers refuse at the top (Anthropic rejects a top-level anyOf, oneOf or
// allOf; OpenAI requires "type":"object" there).
func (c *conv) fixTop(root *object) *object {
	top := root.clone()
	if top.has("$schema") {
		top.del("$schema")
		c.change("", `dropped "$schema"`)
	}
	if top.has("allOf") {
		top = c.flattenAllOf(top, "")
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts, ok := top.vals[kw].([]any); ok {
			c.unionTop(top, kw, alts)
		}
	}
	switch t := top.vals["type"].(type) {
	case nil:
		top.setFirst("type", "object")
		c.change("", `added "type":"object"`)
	case string:
		if t != "object" {
			c.change("", "replaced a top-level schema of type %q with an empty object: tool arguments are always an object", t)
			desc := top.str("description")
			top = newObject()
			top.set("type", "object")
			if desc != "" {
				top.set("description", desc)
			}
		}
	case []any:
		top.set("type", "object")
		c.change("", `changed the type list to "object"`)
	default:
		top.set("type", "object")
		c.change("", `replaced an invalid "type" with "object"`)
	}
	if _, ok := top.vals["properties"].(*object); !ok {
		top.set("properties", newObject())
		c.change("", `added empty "properties"`)
	}
	return top
}

// unionTop replaces a top-level anyOf or oneOf by one object that has the
// properties of every alternative; only properties required by all
// alternatives stay required, and the description says that the arguments
// take one of several shapes.
func (c *conv) unionTop(top *object, kw string, alts []any) {
	top.del(kw)
	props, _ := top.vals["properties"].(*object)
	if props == nil {
		props = newObject()
	}
	var shapes []string
	var required map[string]bool
	for i, a := range alts {
		alt := c.deref(a, fmt.Sprintf("/%s/%d", kw, i))
		if alt == nil {
			continue
		}
		if alt.has("allOf") {
			alt = c.flattenAllOf(alt, fmt.Sprintf("/%s/%d", kw, i))
		}
		ap, _ := alt.vals["properties"].(*object)
		var names []string
		if ap != nil {
			for _, k := range ap.keys {
				names = append(names, k)
				if !props.has(k) {
					props.set(k, ap.vals[k])
				}
			}
		}
		req := map[string]bool{}
		for _, r := range strings_(alt.vals["required"]) {
			req[r] = true
		}
		if required == nil {
			required = req
		} else {
			for r := range required {
				if !req[r] {
					delete(required, r)
				}
			}
		}
		shapes = append(shapes, "("+strings.Join(names, ", ")+")")
	}
	if len(props.keys) > 0 {
		top.set("properties", props)
	}
	var keep []any
	for _, r := range strings_(top.vals["required"]) {
		keep = append(keep, r)
		delete(required, r)
	}
	for _, k := range props.keys {
		if required[k] {
			keep = append(keep, k)
		}
	}
	if len(keep) > 0 {
		top.set("required", keep)
	}
	if len(shapes) > 1 {
		appendNote(top, "Pass the arguments of exactly one of these sets: "+strings.Join(shapes, " or ")+".")
	}
	c.change("", "merged the top-level %q alternatives into one object", kw)
}

// strings_ returns the string elements of v when v is an array.
func strings_(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// appendNote adds a sentence to the description of s.
func appendNote(s *object, note string) {
	s.set("description", joinSentences(s.str("description"), note))
}

// joinSentences joins two pieces of description text, ending the first with
// a full stop when it has no closing punctuation.
func joinSentences(a, b string) string {
	a = strings.TrimRight(a, " \n")
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case !strings.ContainsAny(a[len(a)-1:], ".!?:)"):
		a += "."
	}
	return a + " " + b
}

// resolve returns the schema a local "$ref" points to ("#", "#/$defs/x",
// "#/definitions/x", any JSON Pointer into the document), or nil.
func (c *conv) resolve(ref string) *object {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	var cur any = c.root
	if frag != "" {
		p, ok := strings.CutPrefix(frag, "/")
		if !ok {
			return nil // a named anchor, not a pointer
		}
		for _, tok := range strings.Split(p, "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch t := cur.(type) {
			case *object:
				cur = t.vals[tok]
			case []any:
				i, err := parseIndex(tok)
				if err != nil || i >= len(t) {
					return nil
				}
				cur = t[i]
			default:
				return nil
			}
		}
	}
	if b, ok := cur.(bool); ok && b {
		return newObject()
	}
	o, _ := cur.(*object)
	return o
}

func parseIndex(tok string) (int, error) {
	var n int
	if tok == "" || len(tok) > 9 {
		return 0, fmt.Errorf("bad index %q", tok)
	}
	for _, r := range tok {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("bad index %q", tok)
		}
		n = n*10 + int(r-'0')
	}
	return n, nil
}

// maxRefHops bounds a chain of references to references.
const maxRefHops = 16

// deref returns v as a schema object with a top-level "$ref" replaced by
// its target; the referring object's other keywords win over the target's.
// It returns nil for false, non-schemas and unresolvable references (noted).
func (c *conv) deref(v any, path string) *object {
	switch t := v.(type) {
	case bool:
		if t {
			return newObject()
		}
		return nil
	case *object:
		s := t
		for range maxRefHops {
			ref, ok := s.vals["$ref"].(string)
			if !ok {
				return s
			}
			target := c.resolve(ref)
			if target == nil {
				c.change(path, "could not resolve $ref %q", ref)
				out := s.clone()
				out.del("$ref")
				return out
			}
			merged := target.clone()
			for _, k := range s.keys {
				if k != "$ref" {
					merged.set(k, s.vals[k])
				}
			}
			s = merged
		}
		c.change(path, "gave up on a chain of more than %d references", maxRefHops)
		out := s.clone()
		out.del("$ref")
		return out
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case *object:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}
