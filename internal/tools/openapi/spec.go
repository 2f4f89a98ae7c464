package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxSpecBytes bounds how much of a document is read: real specs are well
// under a megabyte, and a bound keeps a misconfigured URL from eating memory.
const maxSpecBytes = 16 << 20

// maxYAMLDepth bounds nesting while normalising YAML so that a hostile
// document cannot exhaust the stack.
const maxYAMLDepth = 200

// document is a parsed OpenAPI 3.x document: the decoded JSON tree (maps,
// slices, strings, json.Number, bools, nil) plus the version it declares.
// 3.0 and 3.1 need no separate code paths: their schema differences
// (nullable, boolean exclusive bounds, example) are told apart by the
// keyword's shape, which also copes with documents that mix them.
type document struct {
	root    map[string]any
	version string // the "openapi" field, e.g. "3.1.0"
}

// errNotOpenAPI marks input that parsed but is not an OpenAPI 3 document, so
// discovery can say why it moved on.
var errNotOpenAPI = errors.New("not an OpenAPI 3 document")

// parseDocument decodes b as JSON or, failing that, YAML, and checks that it
// declares OpenAPI 3.x.
func parseDocument(b []byte) (*document, error) {
	tree, err := decodeTree(b)
	if err != nil {
		return nil, err
	}
	root, ok := tree.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the top level is not an object", errNotOpenAPI)
	}
	if v, ok := root["swagger"].(string); ok {
		return nil, fmt.Errorf("%w: it is Swagger %s; convert it to OpenAPI 3 (for example with swagger2openapi)", errNotOpenAPI, v)
	}
	var v string
	switch ver := root["openapi"].(type) {
	case string:
		v = ver
	case json.Number: // YAML `openapi: 3.1` unquoted reads as a number
		v = ver.String()
	default:
		return nil, fmt.Errorf("%w: no \"openapi\" version field", errNotOpenAPI)
	}
	if !strings.HasPrefix(v, "3.") {
		return nil, fmt.Errorf("%w: version %q is not 3.x", errNotOpenAPI, v)
	}
	if _, ok := root["paths"]; ok {
		if _, ok := root["paths"].(map[string]any); !ok {
			return nil, fmt.Errorf("reading openapi document: \"paths\" is not an object")
		}
	}
	return &document{root: root, version: v}, nil
}

// decodeTree decodes JSON when b looks like JSON, YAML otherwise. YAML is a
// superset of JSON, but encoding/json keeps numbers exact and is faster.
func decodeTree(b []byte) (any, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: the document is empty", errNotOpenAPI)
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("decoding json: %w", err)
		}
		if dec.More() {
			return nil, errors.New("decoding json: trailing data after the document")
		}
		return v, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(trimmed, &n); err != nil {
		return nil, fmt.Errorf("decoding yaml: %w", err)
	}
	return yamlValue(&n, 0)
}

// yamlValue converts a YAML node into the same shapes encoding/json
// produces. Working from nodes rather than decoding into any lets us cap the
// depth and refuse alias expansion, which is how "billion laughs" documents
// blow up.
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("decoding yaml: nested deeper than %d levels", maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				return nil, fmt.Errorf("decoding yaml: line %d: merge keys (<<) are not supported", k.Line)
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("decoding yaml: line %d: mapping key is not a scalar", k.Line)
			}
			val, err := yamlValue(v, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		return s, nil
	case yaml.AliasNode:
		return nil, fmt.Errorf("decoding yaml: line %d: aliases (*name) are not supported; use $ref", n.Line)
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return nil, fmt.Errorf("decoding yaml: line %d: unexpected node", n.Line)
}

// yamlScalar maps a resolved YAML scalar to a JSON value. Numbers become
// json.Number so that they print back exactly as written.
func yamlScalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, fmt.Errorf("decoding yaml: line %d: %w", n.Line, err)
		}
		return b, nil
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, fmt.Errorf("decoding yaml: line %d: %w", n.Line, err)
		}
		// Re-encode so that forms like 0x1F or 1_000 become valid JSON.
		b, err := json.Marshal(f)
		if err != nil {
			return nil, fmt.Errorf("decoding yaml: line %d: number %q has no JSON form", n.Line, n.Value)
		}
		if json.Valid([]byte(n.Value)) {
			return json.Number(n.Value), nil
		}
		return json.Number(b), nil
	}
	return n.Value, nil
}
