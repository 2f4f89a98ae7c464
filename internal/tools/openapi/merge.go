package openapi

import "reflect"

// Schema rewrites applied after conversion: 3.0's nullable, readOnly
// properties, and allOf folding.

// addNull widens s to accept null, the 3.0 nullable: true.
func addNull(s map[string]any) {
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
	case []any:
		if !containsValue(t, "null") {
			s["type"] = append(append([]any{}, t...), "null")
		}
	}
	if enum, ok := s["enum"].([]any); ok && !containsValue(enum, nil) {
		s["enum"] = append(append([]any{}, enum...), nil)
	}
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) { // == would panic on two maps
			return true
		}
	}
	return false
}

// dropReadOnly removes readOnly properties: these schemas describe what the
// caller sends, and the server sets read-only fields itself.
func dropReadOnly(s map[string]any) {
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return
	}
	for name, p := range props {
		if pm, ok := p.(map[string]any); ok && pm["readOnly"] == true {
			delete(props, name)
			if req, ok := s["required"].([]any); ok {
				s["required"] = removeValue(req, name)
			}
		}
	}
}

func removeValue(list []any, v any) []any {
	out := make([]any, 0, len(list))
	for _, x := range list {
		if !reflect.DeepEqual(x, v) {
			out = append(out, x)
		}
	}
	return out
}

// mergeable lists keywords on which two allOf members can be combined even
// when they differ: properties and required are unions, the rest are
// annotations where the outer value wins.
var mergeable = map[string]bool{
	"properties": true, "required": true, "description": true, "title": true,
	"examples": true, "default": true, "deprecated": true,
}

// mergeAllOf folds allOf members into s when that keeps the meaning: object
// properties are combined and required lists joined. A member that would
// conflict with what s already says (two different types, two oneOfs) stays
// in allOf, so nothing is silently lost.
func mergeAllOf(s map[string]any) {
	all, ok := s["allOf"].([]any)
	if !ok {
		return
	}
	delete(s, "allOf")
	var rest []any
	for _, member := range all {
		m, ok := member.(map[string]any)
		if !ok {
			if member != true {
				rest = append(rest, member)
			}
			continue
		}
		if !canMerge(s, m) {
			rest = append(rest, m)
			continue
		}
		mergeInto(s, m)
	}
	if len(rest) > 0 {
		s["allOf"] = rest
	}
}

func canMerge(dst, src map[string]any) bool {
	for k, v := range src {
		if k == "allOf" {
			return false // only after its own merge left a conflict
		}
		if old, ok := dst[k]; ok && !mergeable[k] && !reflect.DeepEqual(old, v) {
			return false
		}
	}
	return true
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			sp, _ := v.(map[string]any)
			dp, ok := dst[k].(map[string]any)
			if !ok {
				dp = make(map[string]any, len(sp))
				dst[k] = dp
			}
			for name, p := range sp {
				old, ok := dp[name]
				if !ok || reflect.DeepEqual(old, p) {
					dp[name] = p
					continue
				}
				both := map[string]any{"allOf": []any{old, p}}
				mergeAllOf(both)
				dp[name] = both
			}
		case "required":
			sr, _ := v.([]any)
			dr, _ := dst[k].([]any)
			for _, r := range sr {
				if !containsValue(dr, r) {
					dr = append(dr, r)
				}
			}
			dst[k] = dr
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}
