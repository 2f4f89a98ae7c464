package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the work of one decode, so aliases that fan out (a "billion
// laughs" file) end with an error instead of a hang.
const maxNodes = 1 << 18

// decoder walks a node tree against a Go value by reflection, collecting
// every error with its field path and line instead of stopping at the first.
type decoder struct {
	getenv      func(string) string
	errs        []error
	unset       []unsetVar
	secretPaths map[string]bool
	nodes       int
	// merging holds the mappings whose << merge keys are being resolved,
	// to catch a mapping that merges itself.
	merging map[*yaml.Node]bool
}

// spend counts k nodes of work and reports whether the budget allows it,
// recording errTooLarge once when it runs out.
func (d *decoder) spend(k int) bool {
	if d.nodes >= maxNodes {
		return false
	}
	d.nodes += k
	if d.nodes >= maxNodes {
		d.errs = append(d.errs, errTooLarge)
		return false
	}
	return true
}

func (d *decoder) errorf(path string, n *yaml.Node, format string, args ...any) {
	fe := &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		fe.Line = n.Line
	}
	d.errs = append(d.errs, fe)
}

var durationType = reflect.TypeFor[time.Duration]()

// decode sets v (addressable) from n. A null node leaves v as it is, so an
// empty key means the same as an absent one.
func (d *decoder) decode(path string, n *yaml.Node, v reflect.Value) {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		if i > 100 {
			d.errorf(path, n, "alias chain too long")
			return
		}
		n = n.Alias
	}
	if !d.spend(1) {
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if v.Type() == durationType {
		d.duration(path, n, v)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.structure(path, n, v)
	case reflect.Map:
		d.mapping(path, n, v)
	case reflect.Slice:
		d.list(path, n, v)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(path, n, v.Elem())
	case reflect.String:
		d.str(path, n, v)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			d.errorf(path, n, "expected true or false, got %s", describe(n))
			return
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			d.errorf(path, n, "expected true or false, got %q", n.Value)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && !strings.ContainsAny(n.Value, ".eEnN") {
			// YAML resolves integers too large for int64 as floats.
			d.errorf(path, n, "integer %s is out of range", n.Value)
			return
		}
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			d.errorf(path, n, "expected an integer, got %s", describe(n))
			return
		}
		var i int64
		if err := n.Decode(&i); err != nil || v.OverflowInt(i) {
			d.errorf(path, n, "integer %s is out of range", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
			d.errorf(path, n, "expected a number, got %s", describe(n))
			return
		}
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			d.errorf(path, n, "expected a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		// Only reachable if a field of an unsupported kind is added to Config.
		d.errorf(path, n, "field of kind %s cannot be set from a file", v.Kind())
	}
}

// str sets a string field. Any plain scalar is accepted as its text, so
// YAML's `DEBUG: true` or `protocolVersion: 2025-06-18` mean what they say.
func (d *decoder) str(path string, n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(path, n, "expected a string, got %s", describe(n))
		return
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
	default:
		d.errorf(path, n, "expected a string, got a value tagged %s", n.Tag)
		return
	}
	s, refs, err := expand(n.Value, d.getenv)
	if err != nil {
		d.errorf(path, n, "%v", err)
		return
	}
	for _, r := range refs {
		if !r.set {
			d.unset = append(d.unset, unsetVar{path: path, name: r.name})
		}
		if looksSecret(r.name) {
			d.secretPaths[path] = true
		}
	}
	v.SetString(s)
}

// duration accepts a Go duration string ("90s", "1m30s") or a number of
// seconds (60, 0.5).
func (d *decoder) duration(path string, n *yaml.Node, v reflect.Value) {
	const want = `expected a duration such as "30s", "2m" or a number of seconds`
	if n.Kind != yaml.ScalarNode {
		d.errorf(path, n, "%s, got %s", want, describe(n))
		return
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.Abs(f) > math.MaxInt64/float64(time.Second) {
			d.errorf(path, n, "%s, got %s", want, n.Value)
			return
		}
		v.SetInt(int64(f * float64(time.Second)))
	case "!!str":
		s, _, err := expand(n.Value, d.getenv)
		if err != nil {
			d.errorf(path, n, "%v", err)
			return
		}
		dur, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			if secs, err2 := strconv.ParseFloat(strings.TrimSpace(s), 64); err2 == nil && math.Abs(secs) <= math.MaxInt64/float64(time.Second) {
				v.SetInt(int64(secs * float64(time.Second)))
				return
			}
			d.errorf(path, n, "%s, got %q", want, s)
			return
		}
		v.SetInt(int64(dur))
	default:
		d.errorf(path, n, "%s, got %s", want, describe(n))
	}
}

func (d *decoder) list(path string, n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(path, n, "expected a list, got %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		e := s.Index(i)
		e.Set(prototype(e.Type()))
		d.decode(path+"["+strconv.Itoa(i)+"]", c, e)
	}
	v.Set(s)
}

func (d *decoder) mapping(path string, n *yaml.Node, v reflect.Value) {
	pairs, ok := d.pairs(path, n)
	if !ok {
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	et := v.Type().Elem()
	for _, p := range pairs {
		e := reflect.New(et).Elem()
		e.Set(prototype(et))
		d.decode(joinKey(path, p.key), p.value, e)
		v.SetMapIndex(reflect.ValueOf(p.key).Convert(v.Type().Key()), e)
	}
}

// prototype returns the value a new map or list entry starts from, so the
// per-entry defaults apply to keys the entry leaves out.
func prototype(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeFor[MCPServer]():
		return reflect.ValueOf(defaultMCPServer())
	case reflect.TypeFor[OpenAPIServer]():
		return reflect.ValueOf(defaultOpenAPIServer())
	case reflect.TypeFor[Model]():
		return reflect.ValueOf(defaultModel())
	case reflect.TypeFor[Agent]():
		return reflect.ValueOf(defaultAgent())
	}
	return reflect.Zero(t)
}

type pair struct {
	key       string
	keyNode   *yaml.Node
	value     *yaml.Node
	fromMerge bool
}

// pairs returns the entries of a mapping node in order, with YAML merge keys
// (<<: *anchor) applied: explicit keys win over merged ones. It reports
// duplicate and non-scalar keys.
func (d *decoder) pairs(path string, n *yaml.Node) ([]pair, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(path, n, "expected a mapping (key: value), got %s", describe(n))
		return nil, false
	}
	var out []pair
	seen := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, val)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(path, k, "a key must be a plain string, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(joinKey(path, k.Value), k, "duplicate key (first at line %d); keep one", first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{key: k.Value, keyNode: k, value: val})
	}
	for _, m := range merges {
		srcs := []*yaml.Node{m}
		if resolveAlias(m).Kind == yaml.SequenceNode {
			srcs = resolveAlias(m).Content
		}
		for _, src := range srcs {
			src = resolveAlias(src)
			if src.Kind != yaml.MappingNode {
				d.errorf(path, src, "<< merges a mapping, got %s", describe(src))
				continue
			}
			if d.merging[src] || src == n {
				d.errorf(path, src, "<< merges a mapping into itself")
				continue
			}
			if !d.spend(len(src.Content)) {
				return out, true
			}
			if d.merging == nil {
				d.merging = map[*yaml.Node]bool{}
			}
			d.merging[n] = true
			sub, _ := d.pairs(path, src)
			delete(d.merging, n)
			for _, p := range sub {
				if _, dup := seen[p.key]; !dup {
					seen[p.key] = p.keyNode
					p.fromMerge = true
					out = append(out, p)
				}
			}
		}
	}
	return out, true
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// describe names the kind of a node for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %s", quoteShort(n.Value))
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		case "!!null":
			return "null"
		default:
			return "a value tagged " + n.Tag
		}
	}
	return "an alias"
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// joinKey appends a map key or field name to a field path: a.b for plain
// keys, a["x.y"] for keys that would be ambiguous.
func joinKey(path, key string) string {
	plain := key != ""
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}
