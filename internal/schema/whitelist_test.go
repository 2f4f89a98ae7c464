package schema

import (
	"fmt"
	"slices"
	"sort"
)

// geminiAllowed are the Schema fields of the Gemini API reference
// (functionDeclarations parameters).
var geminiAllowed = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "example": true, "anyOf": true, "propertyOrdering": true, "default": true,
	"items": true, "minimum": true, "maximum": true,
}

var geminiTypes = []string{"string", "number", "integer", "boolean", "array", "object"}

// geminiProblems walks a schema decoded with encoding/json and lists every
// keyword or value Gemini would not accept.
func geminiProblems(s map[string]any, path string) []string {
	var out []string
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s[k]
		p := path + "/" + k
		if !geminiAllowed[k] {
			out = append(out, fmt.Sprintf("%s: keyword not allowed", p))
			continue
		}
		switch k {
		case "type":
			if t, ok := v.(string); !ok || !slices.Contains(geminiTypes, t) {
				out = append(out, fmt.Sprintf("%s: type %v not allowed", p, v))
			}
		case "enum":
			for _, e := range v.([]any) {
				if _, ok := e.(string); !ok {
					out = append(out, fmt.Sprintf("%s: enum value %v is not a string", p, e))
				}
			}
		case "format":
			t, _ := s["type"].(string)
			if f, _ := v.(string); !geminiFormats[t][f] {
				out = append(out, fmt.Sprintf("%s: format %v not documented for type %q", p, v, t))
			}
		case "nullable":
			if v != true {
				out = append(out, fmt.Sprintf("%s: nullable is %v", p, v))
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				out = append(out, fmt.Sprintf("%s: not an object", p))
				continue
			}
			for name, sub := range props {
				out = append(out, subProblems(sub, p+"/"+name)...)
			}
		case "required":
			props, _ := s["properties"].(map[string]any)
			for _, r := range v.([]any) {
				if _, ok := props[r.(string)]; !ok {
					out = append(out, fmt.Sprintf("%s: %v is not a property", p, r))
				}
			}
		case "items":
			out = append(out, subProblems(v, p)...)
		case "anyOf":
			for i, sub := range v.([]any) {
				out = append(out, subProblems(sub, fmt.Sprintf("%s/%d", p, i))...)
			}
		}
	}
	if s["type"] == "array" && s["items"] == nil {
		out = append(out, fmt.Sprintf("%s: array without items", path))
	}
	for _, k := range objectKeywords {
		if _, ok := s[k]; ok && s["type"] != "object" {
			out = append(out, fmt.Sprintf("%s/%s: only allowed for type object", path, k))
		}
	}
	for _, k := range arrayKeywords {
		if _, ok := s[k]; ok && s["type"] != "array" {
			out = append(out, fmt.Sprintf("%s/%s: only allowed for type array", path, k))
		}
	}
	if props, _ := s["properties"].(map[string]any); path != "" && s["type"] == "object" && len(props) == 0 {
		out = append(out, fmt.Sprintf("%s: nested object without properties", path))
	}
	return out
}

func subProblems(v any, path string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: schema is a %T, not an object", path, v)}
	}
	return geminiProblems(m, path)
}
