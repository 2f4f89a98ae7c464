package schema

import (
	"slices"
)

// maxAllOfRounds bounds how often nested allOf lists are flattened, and
// maxMerges how many subschemas one conversion merges in all, so a cycle of
// references through allOf (which can double the list every round) cannot
// loop forever.
const (
	maxAllOfRounds = 32
	maxMerges      = 500
)

// flattenAllOf returns s with its allOf subschemas merged into it. Local
// references in the subschemas are resolved first. Properties present in
// several subschemas are combined into an allOf of their own, merged when
// that property is converted.
func (c *conv) flattenAllOf(s *object, path string) *object {
	out := s.clone()
	for round := 0; out.has("allOf"); round++ {
		subs, _ := out.vals["allOf"].([]any)
		out.del("allOf")
		if round == maxAllOfRounds {
			c.change(path, "stopped merging allOf after %d nested rounds", maxAllOfRounds)
			break
		}
		for _, sub := range subs {
			if c.merges++; c.merges > maxMerges {
				c.change(path, "stopped merging allOf after %d subschemas", maxMerges)
				out.del("allOf")
				break
			}
			so := c.deref(sub, path+"/allOf")
			if so == nil {
				continue
			}
			mergeInto(out, so)
		}
	}
	c.change(path, "merged allOf")
	return out
}

// mergeInto merges src into dst: properties and required are combined, a
// nested allOf is queued for the next round, and for any other keyword dst
// keeps its own value (descriptions are joined).
func mergeInto(dst, src *object) {
	for _, k := range src.keys {
		v := src.vals[k]
		switch k {
		case "properties":
			sp, ok := v.(*object)
			if !ok {
				continue
			}
			dp, _ := dst.vals["properties"].(*object)
			if dp == nil {
				dst.set("properties", sp.clone())
				continue
			}
			dp = dp.clone()
			for _, name := range sp.keys {
				if old, ok := dp.vals[name]; ok {
					both := newObject()
					both.set("allOf", []any{old, sp.vals[name]})
					dp.set(name, both)
				} else {
					dp.set(name, sp.vals[name])
				}
			}
			dst.set("properties", dp)
		case "required":
			// Only string names count; comparing other values could panic
			// (arrays are not comparable) and means nothing anyway.
			req := strings_(dst.vals["required"])
			for _, r := range strings_(v) {
				if !slices.Contains(req, r) {
					req = append(req, r)
				}
			}
			names := make([]any, len(req))
			for i, r := range req {
				names[i] = r
			}
			dst.set("required", names)
		case "allOf":
			dst.set("allOf", append(slices.Clone(asArray(dst.vals["allOf"])), asArray(v)...))
		case "description":
			d, _ := v.(string)
			switch old := dst.str("description"); {
			case old == "":
				dst.set("description", v)
			case d != "" && d != old:
				dst.set("description", joinSentences(old, d))
			}
		default:
			if !dst.has(k) {
				dst.set(k, v)
			}
		}
	}
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}
