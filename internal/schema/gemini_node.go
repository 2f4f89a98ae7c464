package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// geminiNode converts a schema object with at most one type, no $ref and no
// allOf. Keywords come out in the order they came in; what Gemini cannot
// take but the model should know is folded into the description.
func (c *conv) geminiNode(s *object, path string, depth int) *object {
	out := newObject()
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }

	t := ""
	if types := typeList(s); len(types) == 1 {
		t = types[0]
	}
	nullable := hasNullType(s) || s.vals["nullable"] == true

	// enum and const become one list of values; null among them means
	// nullable, and Gemini takes only strings.
	var values []any
	hasValues, isConst := false, false
	if e, ok := s.vals["enum"].([]any); ok {
		values, hasValues = e, true
	} else if cv, ok := s.vals["const"]; ok {
		values, hasValues, isConst = []any{cv}, true, true
	}
	var nonNull []any
	allStrings := true
	for _, v := range values {
		if v == nil {
			nullable = true
			continue
		}
		if _, ok := v.(string); !ok {
			allStrings = false
		}
		nonNull = append(nonNull, v)
	}
	if t == "" {
		t = inferType(s, nonNull)
	}

	var single *object // the one non-null alternative of an anyOf or oneOf
	combined := ""     // the combinator already turned into anyOf
	valuesDone := false
	mapNoted := false // the description already says any keys are allowed
	for _, k := range s.keys {
		v := s.vals[k]
		p := path + "/" + escapeToken(k)
		switch k {
		case "type":
			if t != "" {
				out.set("type", t)
			}
		case "title", "description":
			if str, ok := v.(string); ok {
				out.set(k, str)
			} else {
				c.change(p, "dropped a %q that is not a string", k)
			}
		case "default", "example":
			out.set(k, v)
		case "examples":
			if arr := asArray(v); len(arr) > 0 && !s.has("example") {
				out.set("example", arr[0])
				c.change(p, `kept the first of "examples" as "example"`)
			} else {
				c.change(p, `dropped "examples"`)
			}
		case "enum", "const":
			if valuesDone || !hasValues {
				c.change(p, "dropped %q", k)
				continue
			}
			valuesDone = true
			switch {
			case len(nonNull) == 0:
			case allStrings:
				out.set("enum", nonNull)
				if isConst {
					c.change(p, "turned const into a one-value enum")
				}
			case isConst:
				note("Must be %s.", literal(nonNull[0]))
				c.change(p, "dropped const %s (not a string)", literal(nonNull[0]))
			default:
				lits := make([]string, len(nonNull))
				for i, e := range nonNull {
					lits[i] = literal(e)
				}
				note("Allowed values: %s.", strings.Join(lits, ", "))
				c.change(p, "dropped an enum of values that are not all strings")
			}
		case "format":
			f, _ := v.(string)
			if geminiFormats[t][f] {
				out.set("format", f)
			} else {
				if f != "" {
					note("Format: %s.", f)
				}
				c.change(p, "dropped format %q", f)
			}
		case "pattern":
			if _, ok := v.(string); ok {
				out.set(k, v)
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minimum", "maximum":
			if _, ok := v.(json.Number); ok {
				out.set(k, v)
			} else {
				c.change(p, "dropped %q that is not a number", k)
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			word := "greater"
			if k == "exclusiveMaximum" {
				word = "less"
			}
			switch ev := v.(type) {
			case json.Number:
				note("Must be %s than %s.", word, ev)
			case bool: // draft 4: the bound in minimum or maximum is exclusive
				bound, ok := s.vals[map[string]string{"greater": "minimum", "less": "maximum"}[word]]
				if ev && ok {
					note("Must be %s than %s, not equal.", word, literal(bound))
				}
			}
			c.change(p, "dropped %q", k)
		case "multipleOf":
			note("Must be a multiple of %s.", literal(v))
			c.change(p, "dropped %q", k)
		case "uniqueItems":
			if v == true {
				note("Items must be unique.")
			}
			c.change(p, "dropped %q", k)
		case "properties":
			po, ok := v.(*object)
			if !ok {
				c.change(p, `dropped "properties" that is not an object`)
				continue
			}
			props := newObject()
			for _, name := range po.keys {
				props.set(name, c.gemini(po.vals[name], p+"/"+escapeToken(name), depth+1))
			}
			out.set("properties", props)
			if len(po.keys) > 1 && !s.has("propertyOrdering") {
				order := make([]any, len(po.keys))
				for i, name := range po.keys {
					order[i] = name
				}
				out.set("propertyOrdering", order)
			}
		case "required":
			po, _ := s.vals["properties"].(*object)
			var keep []any
			for _, name := range strings_(v) {
				if po != nil && po.has(name) {
					keep = append(keep, name)
				} else {
					c.change(p, "dropped required %q, which is not a property", name)
				}
			}
			if len(keep) > 0 {
				out.set("required", keep)
			}
		case "propertyOrdering":
			if names := strings_(v); len(names) > 0 {
				out.set(k, v)
			}
		case "items", "prefixItems":
			if out.has("items") {
				continue // prefixItems and items together were handled once
			}
			out.set("items", c.geminiItems(s, p, depth, note))
		case "anyOf", "oneOf":
			if combined != "" {
				c.change(p, "dropped %q: %q is already used", k, combined)
				note("(Also constrained by a %s that could not be expressed.)", k)
				continue
			}
			combined = k
			var alts []any
			for i, a := range asArray(v) {
				if isNullSchema(a) {
					nullable = true
					continue
				}
				alts = append(alts, c.gemini(a, fmt.Sprintf("%s/%d", p, i), depth+1))
			}
			switch len(alts) {
			case 0:
			case 1:
				single = alts[0].(*object)
			default:
				out.set("anyOf", alts)
			}
			if k == "oneOf" {
				c.change(p, "read oneOf as anyOf")
			}
		case "additionalProperties":
			if ao, ok := v.(*object); ok && !s.has("properties") {
				if at := ao.str("type"); at != "" {
					note("A JSON object with any keys; every value is of type %s.", at)
				} else {
					note("A JSON object with any keys.")
				}
				mapNoted = true
			}
			c.change(p, `dropped "additionalProperties"`)
		case "nullable":
		default:
			if quietKeywords[k] {
				c.change(p, "dropped %q", k)
			} else {
				c.change(p, "dropped unsupported keyword %q", k)
			}
		}
	}

	if single != nil {
		for _, k := range single.keys {
			if !out.has(k) {
				out.set(k, single.vals[k])
			} else if k == "description" && single.str(k) != out.str(k) {
				out.set(k, joinSentences(out.str(k), single.str(k)))
			}
		}
	}
	if t != "" && !out.has("type") && !out.has("anyOf") {
		out.set("type", t)
	}
	if out.str("type") == "string" && out.has("enum") && !out.has("format") {
		out.set("format", "enum")
	}
	c.finishArray(out, path)
	if c.keepStructural(out, path, depth) && !mapNoted {
		note("A JSON object with any keys.")
	}
	if nullable {
		out.set("nullable", true)
	}
	if len(notes) > 0 {
		appendNote(out, strings.Join(notes, " "))
	}
	return out
}

// Keywords Gemini allows only on one type; it rejects "properties" on a
// string, for example, which hand-written schemas sometimes have.
var (
	objectKeywords = []string{"properties", "required", "minProperties", "maxProperties", "propertyOrdering"}
	arrayKeywords  = []string{"items", "minItems", "maxItems"}
)

// keepStructural drops object keywords from non-objects and array keywords
// from non-arrays. It also removes the type of a nested object without
// properties, which Gemini rejects ("properties: should be non-empty for
// OBJECT type"), and then reports true so the caller can say in the
// description that an object is expected.
func (c *conv) keepStructural(out *object, path string, depth int) bool {
	t := out.str("type")
	drop := func(kws []string) {
		for _, k := range kws {
			if out.has(k) {
				out.del(k)
				c.change(path, "dropped %q, which Gemini allows only on another type than %q", k, t)
			}
		}
	}
	if t != "object" {
		drop(objectKeywords)
	}
	if t != "array" {
		drop(arrayKeywords)
	}
	if t != "object" || depth == 0 {
		return false
	}
	if props := out.obj("properties"); props != nil && len(props.keys) > 0 {
		return false
	}
	out.del("type")
	for _, k := range objectKeywords {
		out.del(k)
	}
	c.change(path, "removed the type of an object without properties, which Gemini rejects")
	return true
}

// geminiItems converts items, or a tuple (items as a list, or prefixItems),
// which Gemini cannot express: its positions become anyOf alternatives.
func (c *conv) geminiItems(s *object, path string, depth int, note func(string, ...any)) *object {
	var tuple []any
	if pi, ok := s.vals["prefixItems"].([]any); ok {
		tuple = pi
		if rest, ok := s.vals["items"]; ok && rest != false {
			tuple = append(tuple[:len(tuple):len(tuple)], rest)
		}
	} else if arr, ok := s.vals["items"].([]any); ok {
		tuple = arr
	} else {
		return c.gemini(s.vals["items"], path, depth+1)
	}
	if len(tuple) == 0 {
		return newObject()
	}
	c.change(path, "turned positional items into anyOf")
	if len(tuple) == 1 {
		return c.gemini(tuple[0], path, depth+1)
	}
	alts := make([]any, len(tuple))
	for i, e := range tuple {
		alts[i] = c.gemini(e, fmt.Sprintf("%s/%d", path, i), depth+1)
	}
	note("Items are positional: item i must match alternative i.")
	out := newObject()
	out.set("anyOf", alts)
	return out
}

// inferType guesses the type of a schema that declares none, from its
// keywords or enum values; "" when it cannot tell.
func inferType(s *object, values []any) string {
	switch {
	case s.has("properties"):
		return "object"
	case s.has("items") || s.has("prefixItems"):
		return "array"
	case len(values) == 0:
		return ""
	}
	t := ""
	for _, v := range values {
		vt := ""
		switch n := v.(type) {
		case string:
			vt = "string"
		case bool:
			vt = "boolean"
		case json.Number:
			vt = "number"
			if _, err := n.Int64(); err == nil {
				vt = "integer"
			}
		default:
			return ""
		}
		switch {
		case t == "":
			t = vt
		case t == vt:
		case t == "integer" && vt == "number" || t == "number" && vt == "integer":
			t = "number"
		default:
			return ""
		}
	}
	return t
}
