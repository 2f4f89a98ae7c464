package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The request body rule. A JSON body whose schema is a plain object with
// named properties, none of which is also a parameter's argument name, is
// flattened: its properties become top-level arguments next to the
// parameters, which is what models fill in most reliably. Any other JSON body
// (an array, a scalar, a oneOf, a free-form object, or one whose property
// names clash with a parameter) is nested whole under one argument named
// "body" ("request_body" when a parameter is called body).
//
// A call splits the arguments back the same way: arguments named after a
// parameter go to that parameter; when the body is flattened every other
// argument goes into the body object (so additionalProperties still work);
// when it is nested, the "body" argument is the body.

// addBody adds the request body's arguments to props and required.
func (o *operation) addBody(doc *document, conv *converter, raw any, props map[string]any, required *[]any, taken map[string]bool) error {
	rb, err := doc.resolveObject(raw)
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	o.bodyRequired, _ = rb["required"].(bool)
	content, _ := rb["content"].(map[string]any)
	mt := pickJSONMedia(content)
	if mt == "" {
		if !o.bodyRequired {
			return nil // optional non-JSON body: call without one
		}
		return fmt.Errorf("request body must be JSON, the operation accepts only %s", strings.Join(slices.Sorted(maps.Keys(content)), ", "))
	}
	o.mediaType = mt
	media, _ := content[mt].(map[string]any)
	s, ok := conv.schema(media["schema"], 0).(map[string]any)
	if !ok {
		s = map[string]any{}
	}
	if flattenable(s, taken) {
		o.body = bodyMerged
		bp, _ := s["properties"].(map[string]any)
		for name, ps := range bp {
			props[name] = ps
		}
		if o.bodyRequired {
			req, _ := s["required"].([]any)
			for _, r := range req {
				if name, ok := r.(string); ok && bp[name] != nil && !slices.Contains(*required, any(name)) {
					*required = append(*required, name)
				}
			}
		}
		return nil
	}
	o.body = bodyNested
	o.bodyKey = "body"
	if taken["body"] {
		o.bodyKey = "request_body"
	}
	for i := 2; taken[o.bodyKey]; i++ {
		o.bodyKey = fmt.Sprintf("request_body_%d", i)
	}
	if desc, _ := rb["description"].(string); strings.TrimSpace(desc) != "" {
		s["description"] = strings.TrimSpace(desc)
	} else if _, ok := s["description"]; !ok {
		s["description"] = "The request body (JSON)."
	}
	props[o.bodyKey] = s
	if o.bodyRequired {
		*required = append(*required, o.bodyKey)
	}
	return nil
}

// flattenable reports whether body schema s may be flattened next to the
// parameters whose argument names are in taken.
func flattenable(s map[string]any, taken map[string]bool) bool {
	if t, ok := s["type"]; ok && t != "object" {
		return false
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if", "dependentSchemas", "patternProperties"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	props, ok := s["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return false
	}
	for name := range props {
		if taken[name] {
			return false
		}
	}
	return true
}

// pickJSONMedia chooses the request content type: application/json when
// offered, else the first other JSON type in name order, else "".
func pickJSONMedia(content map[string]any) string {
	best := ""
	for _, mt := range slices.Sorted(maps.Keys(content)) {
		if !isJSONMedia(mt) {
			continue
		}
		base, _, _ := strings.Cut(mt, ";")
		if strings.EqualFold(strings.TrimSpace(base), "application/json") {
			return mt
		}
		if best == "" {
			best = mt
		}
	}
	return best
}
