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

var (
	durationType = reflect.TypeFor[time.Duration]()
	sandboxType  = reflect.TypeFor[Sandbox]()
)

// sandbox accepts true, false, or a mapping of the sandbox's fields,
// which means true.
func (d *decoder) sandbox(path string, n *yaml.Node, v reflect.Value) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.errorf(path, n, "expected true, false or a mapping with read, write, network, limits; got %q", n.Value)
			return
		}
		v.Set(reflect.ValueOf(Sandbox{Enabled: b}))
	case n.Kind == yaml.MappingNode:
		d.structure(path, n, v)
		v.FieldByName("Enabled").SetBool(true)
	default:
		d.errorf(path, n, "expected true, false or a mapping with read, write, network, limits; got %s", describe(n))
	}
}

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
	switch v.Type() {
	case durationType:
		d.duration(path, n, v)
		return
	case sandboxType:
		d.sandbox(path, n, v)
		return
	case perUserType:
		d.perUser(path, n, v)
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
	if s, ok := d.expand(path, n); ok {
		v.SetString(s)
	}
}

// expand expands the ${VAR} references in a scalar's text, remembering
// unset variables and values that came from secret-looking ones.
func (d *decoder) expand(path string, n *yaml.Node) (string, bool) {
	s, refs, err := expand(n.Value, d.getenv)
	if err != nil {
		d.errorf(path, n, "%v", err)
		return "", false
	}
	for _, r := range refs {
		if !r.set {
			d.unset = append(d.unset, unsetVar{path: path, name: r.name})
		}
		if looksSecret(r.name) {
			d.secretPaths[path] = true
		}
	}
	return s, true
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
		s, ok := d.expand(path, n)
		if !ok {
			return
		}
		if s == "" && len(d.unset) > 0 && d.unset[len(d.unset)-1].path == path {
			return // Validate reports the unset variable; the default stays.
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
