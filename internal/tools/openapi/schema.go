package openapi

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Limits on schema expansion. Every $ref is inlined, because tool schemas
// must be self-contained; these bounds keep recursive and deeply shared
// schemas finite.
const (
	// maxRefRepeat is how often one $ref may appear on a single expansion
	// path: a recursive Node shows its children once, then is cut.
	maxRefRepeat = 2
	// maxSchemaDepth bounds nesting of any kind.
	maxSchemaDepth = 40
	// schemaBudget bounds the size of one tool's schema, counted in schema
	// objects plus the values copied through (each object, array and scalar
	// counts one), so that a document of many shared refs, or of large
	// examples inlined many times, cannot explode combinatorially.
	schemaBudget = 100_000
)

// converter turns OpenAPI schema objects into self-contained JSON Schema
// (2020-12) for one tool. It is not safe for concurrent use.
type converter struct {
	doc    *document
	budget int
	stack  []string // $refs being expanded, outermost first
}

func newConverter(doc *document) *converter {
	return &converter{doc: doc, budget: schemaBudget}
}

// schemaKeys lists keywords whose value is one schema.
var schemaKeys = map[string]bool{
	"additionalProperties": true, "not": true, "contains": true, "propertyNames": true,
	"if": true, "then": true, "else": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "additionalItems": true, "contentSchema": true,
}

// schemaMapKeys lists keywords whose value is a map of schemas.
var schemaMapKeys = map[string]bool{"properties": true, "patternProperties": true, "dependentSchemas": true}

// schemaListKeys lists keywords whose value is a list of schemas.
var schemaListKeys = map[string]bool{"allOf": true, "oneOf": true, "anyOf": true, "prefixItems": true}

// dropKeys are OpenAPI-only keywords, or keywords that lose their meaning
// once every $ref is inlined.
var dropKeys = map[string]bool{
	"nullable": true, "discriminator": true, "xml": true, "externalDocs": true,
	"$id": true, "$schema": true, "$anchor": true, "$dynamicAnchor": true,
	"$dynamicRef": true, "$defs": true, "definitions": true, "$comment": true,
}

// schema converts one schema node at nesting depth. It never fails: what it
// cannot follow becomes a permissive schema whose description says why.
func (c *converter) schema(node any, depth int) any {
	m, ok := node.(map[string]any)
	if !ok {
		if b, ok := node.(bool); ok {
			return b // 3.1 boolean schema
		}
		return map[string]any{}
	}
	c.budget--
	if c.budget < 0 {
		return cutNote("schema cut: the document's schemas are too large to inline")
	}
	if depth > maxSchemaDepth {
		return cutNote(fmt.Sprintf("schema cut: nested deeper than %d levels", maxSchemaDepth))
	}
	if ref, ok := m["$ref"].(string); ok {
		return c.ref(ref, m, depth)
	}
	out := make(map[string]any, len(m))
	cut := false
	// Keys in order, so that when the budget runs out the same parts are
	// cut on every read of the same document.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		switch {
		case dropKeys[k], strings.HasPrefix(k, "x-"):
		case k == "example":
			if n := rawSize(v, c.budget+1); n <= c.budget {
				if _, ok := m["examples"]; !ok {
					c.budget -= n
					out["examples"] = []any{v}
				}
			}
		case k == "items":
			if list, ok := v.([]any); ok { // tuple form from older drafts
				out["prefixItems"] = c.list(list, depth)
			} else {
				out[k] = c.schema(v, depth+1)
			}
		case schemaKeys[k]:
			out[k] = c.schema(v, depth+1)
		case schemaMapKeys[k]:
			if props, ok := v.(map[string]any); ok {
				conv := make(map[string]any, len(props))
				for _, name := range slices.Sorted(maps.Keys(props)) {
					conv[name] = c.schema(props[name], depth+1)
				}
				out[k] = conv
			}
		case schemaListKeys[k]:
			if list, ok := v.([]any); ok {
				out[k] = c.list(list, depth)
			}
		case k == "required" || k == "type" || k == "enum":
			if clean, ok := sanitize(k, v); ok {
				cut = !c.copyValue(out, k, clean) || cut
			}
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			if b, ok := v.(bool); ok { // 3.0: a flag on minimum/maximum
				bound := "minimum"
				if k == "exclusiveMaximum" {
					bound = "maximum"
				}
				if lim, ok := m[bound]; ok && b {
					out[k] = lim
				}
			} else {
				out[k] = v
			}
		default:
			cut = !c.copyValue(out, k, v) || cut
		}
	}
	if cut {
		d, _ := out["description"].(string)
		out["description"] = strings.TrimSpace(d + " (some keywords cut: the document's schemas are too large to inline)")
	}
	if b, ok := m["exclusiveMinimum"].(bool); ok && b {
		delete(out, "minimum")
	}
	if b, ok := m["exclusiveMaximum"].(bool); ok && b {
		delete(out, "maximum")
	}
	if n, ok := m["nullable"].(bool); ok && n {
		addNull(out)
	}
	dropReadOnly(out)
	mergeAllOf(out)
	return out
}

func (c *converter) list(list []any, depth int) []any {
	conv := make([]any, len(list))
	for i, s := range list {
		conv[i] = c.schema(s, depth+1)
	}
	return conv
}

// ref inlines the schema that ref points to; sibling keywords (allowed in
// 3.1, and harmless in 3.0) override the target's.
func (c *converter) ref(ref string, m map[string]any, depth int) any {
	seen := 0
	for _, r := range c.stack {
		if r == ref {
			seen++
		}
	}
	if seen >= maxRefRepeat {
		return cutNote(fmt.Sprintf("recursive reference to %s, not expanded further", refName(ref)))
	}
	target, err := c.doc.resolve(ref)
	if err != nil {
		return cutNote(err.Error())
	}
	c.stack = append(c.stack, ref)
	out := c.schema(target, depth+1)
	c.stack = c.stack[:len(c.stack)-1]
	outMap, ok := out.(map[string]any)
	if !ok || len(m) == 1 {
		return out
	}
	siblings := make(map[string]any, len(m)-1)
	for k, v := range m {
		if k != "$ref" {
			siblings[k] = v
		}
	}
	sib, _ := c.schema(siblings, depth).(map[string]any)
	merged := make(map[string]any, len(outMap)+len(sib))
	for k, v := range outMap {
		merged[k] = v
	}
	for k, v := range sib {
		merged[k] = v
	}
	return merged
}

// copyValue sets out[k] = v when the budget allows the copy, and reports
// whether it did.
func (c *converter) copyValue(out map[string]any, k string, v any) bool {
	n := rawSize(v, c.budget+1)
	if n > c.budget {
		// Spend the rest: everything after this is cut too, and no later
		// copy pays for counting a large value again.
		c.budget = 0
		return false
	}
	c.budget -= n
	out[k] = v
	return true
}

// jsonTypes are the type names JSON Schema knows.
var jsonTypes = map[string]bool{
	"string": true, "number": true, "integer": true, "boolean": true,
	"object": true, "array": true, "null": true,
}

// sanitize drops malformed values of keywords that documents often get
// wrong, so that the schema still compiles: required must list strings,
// type must name JSON types, enum must be a list.
func sanitize(k string, v any) (any, bool) {
	switch k {
	case "required":
		list, _ := v.([]any)
		var names []any
		for _, r := range list {
			if name, ok := r.(string); ok && !containsValue(names, name) {
				names = append(names, name)
			}
		}
		return names, len(names) > 0
	case "type":
		if t, ok := v.(string); ok {
			return t, jsonTypes[t]
		}
		list, _ := v.([]any)
		var types []any
		for _, t := range list {
			if name, ok := t.(string); ok && jsonTypes[name] && !containsValue(types, name) {
				types = append(types, name)
			}
		}
		return types, len(types) > 0
	case "enum":
		list, ok := v.([]any)
		return list, ok && len(list) > 0
	}
	return v, true
}

// rawSize counts the objects, arrays and scalars in v, stopping once the
// count exceeds limit, so the cost of counting stays within the budget.
func rawSize(v any, limit int) int {
	n := 0
	stack := []any{v}
	for len(stack) > 0 && n <= limit {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		switch x := x.(type) {
		case map[string]any:
			for _, e := range x {
				stack = append(stack, e)
			}
		case []any:
			stack = append(stack, x...)
		}
	}
	return n
}

// cutNote is the permissive schema left where expansion stopped.
func cutNote(why string) map[string]any {
	return map[string]any{"description": "(" + why + ")"}
}

// refName is the last segment of a $ref, for notes.
func refName(ref string) string {
	return ref[strings.LastIndex(ref, "/")+1:]
}

// resolve follows a local $ref ("#/components/schemas/Pet"). References to
// other documents are not followed: the tool would depend on more fetches
// than its own spec.
func (d *document) resolve(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("unresolved reference %q: only references inside the document (#/...) are followed", ref)
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	var cur any = d.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("unresolved reference %q: not a JSON pointer", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, fmt.Errorf("unresolved reference %q: %q not found", ref, tok)
			}
			cur = next
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(v) {
				return nil, fmt.Errorf("unresolved reference %q: bad index %q", ref, tok)
			}
			cur = v[i]
		default:
			return nil, fmt.Errorf("unresolved reference %q: %q not found", ref, tok)
		}
	}
	return cur, nil
}

// resolveObject follows $ref chains on a non-schema object (a parameter or
// request body) and returns the object itself.
func (d *document) resolveObject(v any) (map[string]any, error) {
	for range 16 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("expected an object")
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		next, err := d.resolve(ref)
		if err != nil {
			return nil, err
		}
		v = next
	}
	return nil, fmt.Errorf("reference chain longer than 16 steps")
}
