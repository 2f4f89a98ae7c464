package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

const (
	// maxRecursion is how often one $ref may be expanded inside its own
	// expansion before the recursion is cut.
	maxRecursion = 2
	// maxDepth bounds the nesting of the output, maxNodes its size: local
	// references can make a small schema expand exponentially.
	maxDepth = 40
	maxNodes = 10000
)

// geminiFormats are the formats Gemini documents, by type.
var geminiFormats = map[string]map[string]bool{
	"string":  {"date-time": true, "enum": true},
	"integer": {"int32": true, "int64": true},
	"number":  {"float": true, "double": true},
}

// quietKeywords are dropped without a note in the description: they are
// annotations or bookkeeping the model does not need.
var quietKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true, "$dynamicAnchor": true,
	"$dynamicRef": true, "$recursiveAnchor": true, "$recursiveRef": true, "$vocabulary": true,
	"$defs": true, "definitions": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"contentEncoding": true, "contentMediaType": true, "contentSchema": true,
	"unevaluatedItems": true, "unevaluatedProperties": true, "additionalItems": true,
	"discriminator": true, "xml": true, "externalDocs": true,
}

// gemini converts one schema to the subset of OpenAPI 3.0 Schema objects
// that Gemini function declarations accept.
func (c *conv) gemini(v any, path string, depth int) *object {
	c.nodes++
	if c.nodes > maxNodes || depth > maxDepth {
		c.change(path, "cut: the schema is too large or too deep")
		o := newObject()
		o.set("description", "(The schema is too large to describe further here.)")
		return o
	}
	var s *object
	switch t := v.(type) {
	case *object:
		s = t
	case bool:
		o := newObject()
		if !t {
			c.change(path, "replaced the false schema")
			o.set("description", "(No value is accepted here.)")
		}
		return o
	default:
		c.change(path, "replaced a JSON %s where a schema belongs", jsonType(v))
		return newObject()
	}
	if ref, ok := s.vals["$ref"].(string); ok {
		return c.geminiRef(s, ref, path, depth)
	}
	if s.has("allOf") {
		s = c.flattenAllOf(s, path)
		if ref, ok := s.vals["$ref"].(string); ok {
			return c.geminiRef(s, ref, path, depth)
		}
	}
	if types := typeList(s); len(types) > 1 {
		return c.geminiTypeUnion(s, types, path, depth)
	}
	return c.geminiNode(s, path, depth)
}

// geminiRef inlines a local reference; Gemini has no $ref. A reference met
// again inside its own expansion is expanded maxRecursion times, then cut
// with a note.
func (c *conv) geminiRef(s *object, ref, path string, depth int) *object {
	target := c.resolve(ref)
	if target == nil {
		c.change(path, "could not resolve $ref %q", ref)
		rest := s.clone()
		rest.del("$ref")
		out := c.gemini(rest, path, depth+1)
		appendNote(out, fmt.Sprintf("(Described elsewhere as %s.)", ref))
		return out
	}
	if c.chain == nil {
		c.chain = map[string]int{}
	}
	if c.chain[ref] >= maxRecursion {
		c.change(path, "cut the recursive $ref %q", ref)
		out := newObject()
		// An object without properties is rejected, so a cut object gets
		// no type; the note says what it is.
		if t, ok := target.vals["type"].(string); ok && t != "null" && t != "object" {
			out.set("type", t)
		}
		desc := s.str("description")
		if desc == "" {
			desc = target.str("description")
		}
		if desc != "" {
			out.set("description", desc)
		}
		appendNote(out, "(Recursive: the same structure as the enclosing one; not expanded further.)")
		c.finishArray(out, path)
		return out
	}
	merged := target.clone()
	for _, k := range s.keys {
		if k != "$ref" {
			merged.set(k, s.vals[k])
		}
	}
	c.chain[ref]++
	out := c.gemini(merged, path, depth+1)
	c.chain[ref]--
	return out
}

// typeList returns the types of s other than "null".
func typeList(s *object) []string {
	switch t := s.vals["type"].(type) {
	case string:
		if t == "null" {
			return nil
		}
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if name, ok := e.(string); ok && name != "null" {
				out = append(out, name)
			}
		}
		return out
	}
	return nil
}

// hasNullType reports whether the type of s is or includes "null".
func hasNullType(s *object) bool {
	switch t := s.vals["type"].(type) {
	case string:
		return t == "null"
	case []any:
		for _, e := range t {
			if e == "null" {
				return true
			}
		}
	}
	return false
}

// typeKeywords are the keywords that belong to one type, for splitting a
// type list into anyOf alternatives.
var typeKeywords = map[string][]string{
	"string":  {"minLength", "maxLength", "pattern", "format", "enum", "const"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format", "enum", "const"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format", "enum", "const"},
	"boolean": {"enum", "const"},
	"array":   {"items", "prefixItems", "minItems", "maxItems", "uniqueItems"},
	"object":  {"properties", "required", "additionalProperties", "minProperties", "maxProperties", "propertyOrdering"},
}

// geminiTypeUnion turns {"type":["string","integer"],...} into anyOf, one
// alternative per type with the keywords that belong to it.
func (c *conv) geminiTypeUnion(s *object, types []string, path string, depth int) *object {
	out := newObject()
	for _, k := range []string{"title", "description", "default", "example"} {
		if v, ok := s.vals[k]; ok {
			out.set(k, v)
		}
	}
	alts := make([]any, 0, len(types))
	for _, t := range types {
		alt := newObject()
		alt.set("type", t)
		for _, k := range typeKeywords[t] {
			if v, ok := s.vals[k]; ok {
				alt.set(k, v)
			}
		}
		alts = append(alts, c.gemini(alt, path, depth+1))
	}
	out.set("anyOf", alts)
	if hasNullType(s) || s.vals["nullable"] == true {
		out.set("nullable", true)
	}
	c.change(path, "turned the type list into anyOf")
	return out
}

// isNullSchema reports whether v is {"type":"null"} (with annotations).
func isNullSchema(v any) bool {
	o, ok := v.(*object)
	return ok && o.str("type") == "null"
}

func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// literal renders a JSON value for a note.
func literal(v any) string {
	if s, ok := v.(string); ok {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return string(encode(nil, v))
}

// finishArray gives an array schema without items a string items schema,
// since Gemini rejects arrays whose items are missing.
func (c *conv) finishArray(out *object, path string) {
	if out.str("type") == "array" && !out.has("items") {
		items := newObject()
		items.set("type", "string")
		out.set("items", items)
		c.change(path, `added "items":{"type":"string"} to an array without items`)
	}
}
