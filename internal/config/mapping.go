package config

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

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
	key     string
	keyNode *yaml.Node
	value   *yaml.Node
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
