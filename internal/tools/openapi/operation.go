package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// methods are the HTTP methods an OpenAPI path item may hold, in the order
// their tools are listed.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// param is one parameter of an operation as the call needs it.
type param struct {
	name     string // name on the wire
	key      string // property name in the tool's arguments
	in       string // path, query, header or cookie
	required bool
	style    string
	explode  bool
	asJSON   bool // declared with content (not schema): sent as JSON text
}

// bodyMode says how the request body travels in the tool's arguments.
type bodyMode int

const (
	bodyNone   bodyMode = iota
	bodyMerged          // the body's properties are top-level arguments
	bodyNested          // the whole body is the argument named by bodyKey
)

// operation is one callable operation: everything a tool call needs.
type operation struct {
	method       string // upper case
	path         string // template, e.g. /users/{id}
	params       []param
	body         bodyMode
	bodyKey      string // for bodyNested
	bodyRequired bool
	mediaType    string // request body content type
	info         tools.Info
}

// buildOperations turns every operation of doc into an operation, in path
// then method order. Operations that cannot be called are skipped with a
// warning that says why.
func buildOperations(doc *document) ([]*operation, []string) {
	paths, _ := doc.root["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var ops []*operation
	var warnings []string
	used := map[string]bool{}
	for _, p := range keys {
		item, err := doc.resolveObject(paths[p])
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("path %s: %v", p, err))
			continue
		}
		for _, m := range methods {
			raw, ok := item[m]
			if !ok {
				continue
			}
			opObj, ok := raw.(map[string]any)
			if !ok {
				warnings = append(warnings, fmt.Sprintf("%s %s: operation is not an object", strings.ToUpper(m), p))
				continue
			}
			op, err := buildOperation(doc, p, m, item, opObj)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s %s skipped: %v", strings.ToUpper(m), p, err))
				continue
			}
			op.info.Name = uniqueName(op.info.Name, used)
			ops = append(ops, op)
		}
	}
	return ops, warnings
}

// uniqueName returns name, or name_2, name_3... when it was taken: duplicate
// operationIds are invalid but common, and both operations stay callable.
func uniqueName(name string, used map[string]bool) string {
	n := name
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	used[n] = true
	return n
}

func buildOperation(doc *document, path, method string, item, op map[string]any) (*operation, error) {
	o := &operation{method: strings.ToUpper(method), path: path}
	conv := newConverter(doc)
	props := map[string]any{}
	var required []any

	params, err := mergedParams(doc, item, op)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, pm := range params {
		p, schema, err := buildParam(conv, pm)
		if err != nil {
			return nil, err
		}
		if p.in == "header" && ignoredHeader(p.name) {
			continue
		}
		p.key = p.name
		if taken[p.key] {
			p.key = p.in + "_" + p.name
		}
		taken[p.key] = true
		o.params = append(o.params, p)
		props[p.key] = schema
		if p.required {
			required = append(required, p.key)
		}
	}
	// A {name} in the path that no parameter declares is a common slip;
	// offer it as a required string rather than fail every call.
	for _, name := range templateNames(path) {
		if slices.ContainsFunc(o.params, func(p param) bool { return p.in == "path" && p.name == name }) {
			continue
		}
		p := param{name: name, key: name, in: "path", required: true, style: "simple"}
		if taken[p.key] {
			p.key = "path_" + name
		}
		taken[p.key] = true
		o.params = append(o.params, p)
		props[p.key] = map[string]any{"type": "string"}
		required = append(required, p.key)
	}
	if rb, ok := op["requestBody"]; ok {
		if err := o.addBody(doc, conv, rb, props, &required, taken); err != nil {
			return nil, err
		}
	}

	input := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		input["required"] = required
	}
	schema, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("encoding input schema: %w", err)
	}
	summary, _ := op["summary"].(string)
	o.info = tools.Info{
		Name:        operationName(op, method, path),
		Title:       strings.TrimSpace(summary),
		Description: description(op, o.method, path),
		InputSchema: schema,
		Annotations: annotations(o.method, op),
	}
	return o, nil
}

// mergedParams returns the path item's parameters overridden by the
// operation's (same name and location), with $refs followed.
func mergedParams(doc *document, item, op map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	index := map[string]int{}
	for _, src := range []any{item["parameters"], op["parameters"]} {
		list, _ := src.([]any)
		for _, raw := range list {
			p, err := doc.resolveObject(raw)
			if err != nil {
				return nil, fmt.Errorf("parameter: %w", err)
			}
			name, _ := p["name"].(string)
			in, _ := p["in"].(string)
			if name == "" || in == "" {
				return nil, fmt.Errorf("parameter without name or in")
			}
			k := in + "\x00" + name
			if i, ok := index[k]; ok {
				out[i] = p
				continue
			}
			index[k] = len(out)
			out = append(out, p)
		}
	}
	return out, nil
}

// buildParam reads one parameter object and converts its schema.
func buildParam(conv *converter, pm map[string]any) (param, map[string]any, error) {
	p := param{}
	p.name, _ = pm["name"].(string)
	p.in, _ = pm["in"].(string)
	p.required, _ = pm["required"].(bool)
	switch p.in {
	case "path":
		p.required = true // OpenAPI requires it; a missing one cannot be sent
		p.style = "simple"
	case "query", "cookie":
		p.style = "form"
	case "header":
		p.style = "simple"
	default:
		return p, nil, fmt.Errorf("parameter %q: unknown location %q", p.name, p.in)
	}
	if s, ok := pm["style"].(string); ok {
		p.style = s
	}
	p.explode = p.style == "form"
	if e, ok := pm["explode"].(bool); ok {
		p.explode = e
	}
	raw := pm["schema"]
	if content, ok := pm["content"].(map[string]any); ok && raw == nil {
		for _, mt := range slices.Sorted(maps.Keys(content)) {
			if m, ok := content[mt].(map[string]any); ok {
				raw = m["schema"]
				p.asJSON = isJSONMedia(mt)
				break
			}
		}
	}
	s, ok := conv.schema(raw, 0).(map[string]any)
	if !ok {
		s = map[string]any{}
	}
	desc, _ := pm["description"].(string)
	if desc = strings.TrimSpace(desc); desc != "" {
		s["description"] = desc
	}
	if d, _ := pm["deprecated"].(bool); d {
		s["deprecated"] = true
	}
	if ex, ok := pm["example"]; ok {
		if _, has := s["examples"]; !has {
			s["examples"] = []any{ex}
		}
	}
	return p, s, nil
}

// isJSONMedia reports whether a media type is JSON: application/json or a
// +json suffix type, with or without parameters.
func isJSONMedia(mt string) bool {
	base, _, _ := strings.Cut(mt, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	return base == "application/json" || strings.HasSuffix(base, "+json")
}

// ignoredHeader reports whether a header parameter is one OpenAPI says to
// ignore: content negotiation and auth are the client's business.
func ignoredHeader(name string) bool {
	switch strings.ToLower(name) {
	case "accept", "content-type", "authorization":
		return true
	}
	return false
}

// templateNames returns the {name} segments of a path template.
func templateNames(path string) []string {
	var names []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return names
		}
		names = append(names, path[i+1:i+j])
		path = path[i+j+1:]
	}
}
