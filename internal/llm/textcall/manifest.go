package textcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// manifestHeader tells the model how to call tools. It is short on purpose:
// small models follow a short, concrete instruction better than a long one.
const manifestHeader = `# Tools

You can call the tools below. To call one, write a block exactly like this, with nothing else inside it:
<tool_code>{"tool_name": "NAME", "arguments": {"PARAM": "VALUE"}}</tool_code>
Write one block per call; you may write several blocks. Each result comes back in a <tool_result name="NAME"> block. If no tool is needed, answer normally, without any block.

Available tools:
`

// Limits for one tool's entry in the manifest.
const (
	maxToolDesc  = 200
	maxParamDesc = 100
	maxEnum      = 12
)

// renderEntry renders one tool as a compact manifest entry: a line with the
// name and the first line of the description, then one line listing the
// parameters (see the golden file in testdata).
func renderEntry(t llm.ToolSpec) (entry string, params []string) {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(t.Name)
	if d := oneLine(t.Description, maxToolDesc); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	}
	b.WriteByte('\n')
	line, params := renderParams(t.Parameters)
	if line != "" {
		b.WriteString("  params: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String(), params
}

// schemaNode is the part of a JSON Schema the manifest shows.
type schemaNode struct {
	Type        json.RawMessage            `json:"type"`
	Description string                     `json:"description"`
	Enum        []json.RawMessage          `json:"enum"`
	Items       *schemaNode                `json:"items"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Required    []string                   `json:"required"`
	AnyOf       []schemaNode               `json:"anyOf"`
	OneOf       []schemaNode               `json:"oneOf"`
}

// renderParams lists the top-level properties of a schema in the order the
// schema gives them, required ones marked, and returns their names.
// Unreadable schemas render as nothing rather than failing the whole prompt.
func renderParams(raw json.RawMessage) (string, []string) {
	if len(raw) == 0 {
		return "", nil
	}
	var s schemaNode
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return "", nil
	}
	required := make(map[string]bool, len(s.Required))
	for _, r := range s.Required {
		required[r] = true
	}
	var out []string
	names := propertyOrder(raw, s.Properties)
	for _, name := range names {
		var p schemaNode
		_ = json.Unmarshal(s.Properties[name], &p) // a broken property renders as its name
		item := name + " (" + typeName(&p)
		if required[name] {
			item += ", required"
		}
		item += ")"
		if d := oneLine(p.Description, maxParamDesc); d != "" {
			item += ": " + d
		}
		out = append(out, item)
	}
	return strings.Join(out, "; "), names
}

// typeName describes a property's type in a few words: "string",
// "array of integer", "one of "a" | "b"".
func typeName(p *schemaNode) string {
	if len(p.Enum) > 0 {
		vals := make([]string, 0, min(len(p.Enum), maxEnum))
		for i, e := range p.Enum {
			if i == maxEnum {
				vals = append(vals, fmt.Sprintf("... %d more", len(p.Enum)-maxEnum))
				break
			}
			vals = append(vals, string(bytes.TrimSpace(e)))
		}
		return "one of " + strings.Join(vals, " | ")
	}
	var t string
	var types []string
	switch {
	case json.Unmarshal(p.Type, &t) == nil && t != "":
		types = []string{t}
	case json.Unmarshal(p.Type, &types) == nil && len(types) > 0:
	default:
		for _, alt := range append(p.AnyOf, p.OneOf...) {
			types = append(types, typeName(&alt))
		}
	}
	if len(types) == 0 {
		return "any"
	}
	if len(types) == 1 && types[0] == "array" && p.Items != nil {
		return "array of " + typeName(p.Items)
	}
	return strings.Join(types, " or ")
}

// propertyOrder returns the keys of the schema's "properties" in document
// order, so the manifest is stable and reads as the author wrote it. It
// falls back to sorted keys if the document cannot be walked.
func propertyOrder(raw json.RawMessage, props map[string]json.RawMessage) []string {
	if keys, ok := objectKeys(raw, "properties"); ok && len(keys) == len(props) {
		return keys
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// objectKeys returns, in order, the keys of the object stored under field
// of the top-level object raw.
func objectKeys(raw json.RawMessage, field string) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if tok != field {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, false
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, false
			}
			ks, _ := k.(string)
			keys = append(keys, ks)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
		}
		return keys, true
	}
	return nil, false
}

// oneLine returns the first line of s, cut to at most max bytes on a rune
// boundary with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "..."
}

// EstimateTokens estimates how many tokens s takes: about one per four bytes
// of English or JSON, which errs on the generous side for code and names.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }
