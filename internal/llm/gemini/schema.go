package gemini

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// TODO(#3): replace toSchema with the shared per-provider conversion in
// package internal/schema once it lands; this is a local stand-in so the
// adapter sends schemas Gemini accepts meanwhile.

// toSchema converts a tool's JSON Schema to the OpenAPI subset Gemini's
// functionDeclarations accept: local $refs inlined, type lists turned into
// nullable or anyOf, oneOf read as anyOf, const as a one-value enum,
// non-string enums and unknown keywords dropped. A schema without
// parameters returns nil, because Gemini refuses an object with no
// properties.
func toSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("reading JSON Schema: %w", err)
	}
	conv := &schemaConv{root: root}
	out := conv.node(root, 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding Gemini schema: %w", err)
	}
	return b, nil
}

type schemaConv struct {
	root map[string]any
}

// maxSchemaDepth cuts recursive schemas (a tree node whose children are
// tree nodes) that Gemini could not express anyway.
const maxSchemaDepth = 12

// Keywords copied as they are.
var plainKeys = []string{"description", "title", "minItems", "maxItems", "minLength", "maxLength",
	"pattern", "minimum", "maximum", "minProperties", "maxProperties", "default", "example"}

func (c *schemaConv) node(s map[string]any, depth int) map[string]any {
	if depth > maxSchemaDepth {
		return map[string]any{"type": "object"}
	}
	if ref, ok := s["$ref"].(string); ok {
		if target := c.resolve(ref); target != nil {
			merged := make(map[string]any, len(target))
			for k, v := range target {
				merged[k] = v
			}
			if d, ok := s["description"]; ok {
				merged["description"] = d
			}
			return c.node(merged, depth+1)
		}
		return map[string]any{"type": "object"}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if sub, ok := all[0].(map[string]any); ok {
			return c.node(sub, depth+1)
		}
	}
	out := make(map[string]any)
	for _, k := range plainKeys {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	c.typ(s, out, depth)
	if e := enumOf(s); e != nil {
		out["enum"] = e
		out["type"] = "string"
		out["format"] = "enum"
	}
	if f, ok := s["format"].(string); ok && out["format"] == nil {
		switch t, _ := out["type"].(string); {
		case t == "string" && f == "date-time",
			t == "integer" && (f == "int32" || f == "int64"),
			t == "number" && (f == "float" || f == "double"):
			out["format"] = f
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		conv := make(map[string]any, len(props))
		for k, v := range props {
			if sub, ok := v.(map[string]any); ok {
				conv[k] = c.node(sub, depth+1)
			}
		}
		out["properties"] = conv
		if out["type"] == nil {
			out["type"] = "object"
		}
		if req, ok := s["required"].([]any); ok {
			var keep []any
			for _, r := range req {
				if name, ok := r.(string); ok && conv[name] != nil {
					keep = append(keep, r)
				}
			}
			if len(keep) > 0 {
				out["required"] = keep
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		out["items"] = c.node(items, depth+1)
	} else if out["type"] == "array" {
		out["items"] = map[string]any{"type": "string"} // Gemini requires items on arrays
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && out["anyOf"] == nil {
			var conv []any
			for _, a := range alts {
				if sub, ok := a.(map[string]any); ok {
					if t, _ := sub["type"].(string); t == "null" {
						out["nullable"] = true
						continue
					}
					conv = append(conv, c.node(sub, depth+1))
				}
			}
			switch len(conv) {
			case 0:
			case 1:
				for k, v := range conv[0].(map[string]any) {
					if out[k] == nil {
						out[k] = v
					}
				}
			default:
				out["anyOf"] = conv
			}
		}
	}
	return out
}

// typ sets type and nullable from "type", which may be a list.
func (c *schemaConv) typ(s, out map[string]any, depth int) {
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = t
		}
	case []any:
		var types []string
		for _, v := range t {
			if name, ok := v.(string); ok {
				if name == "null" {
					out["nullable"] = true
				} else {
					types = append(types, name)
				}
			}
		}
		switch len(types) {
		case 0:
		case 1:
			out["type"] = types[0]
		default:
			alts := make([]any, 0, len(types))
			for _, name := range types {
				alt := maps(s)
				alt["type"] = name
				alts = append(alts, c.node(alt, depth+1))
			}
			out["anyOf"] = alts
		}
	}
	if s["nullable"] == true {
		out["nullable"] = true
	}
}

// maps returns a shallow copy of s without the keywords anyOf alternatives
// must not repeat.
func maps(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != "anyOf" && k != "oneOf" && k != "description" {
			out[k] = v
		}
	}
	return out
}

// enumOf returns the string values of enum or const; Gemini takes string
// enums only, so other values drop the constraint.
func enumOf(s map[string]any) []any {
	vals, ok := s["enum"].([]any)
	if c, has := s["const"]; has {
		vals, ok = []any{c}, true
	}
	if !ok || len(vals) == 0 {
		return nil
	}
	if slices.ContainsFunc(vals, func(v any) bool { _, isStr := v.(string); return !isStr }) {
		return nil
	}
	return vals
}

// resolve finds a local reference "#/$defs/x" or "#/definitions/x".
func (c *schemaConv) resolve(ref string) map[string]any {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = c.root
	for _, seg := range strings.Split(path, "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}
