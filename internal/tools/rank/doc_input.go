package rank

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Doc is what the retriever reads of one tool.
type Doc struct {
	// Name is the catalogue name the model sees ("mail__send_email").
	Name string
	// Server is the server the tool comes from; "" for a built-in tool.
	Server string
	// Tool is the tool's own name at its origin ("send_email").
	Tool        string
	Title       string
	Description string
	// InputSchema is the tool's JSON Schema; its top-level property
	// names, descriptions and enum values are indexed.
	InputSchema json.RawMessage
	Annotations *tools.Annotations
}

// DocOf returns the Doc of a catalogue entry.
func DocOf(e tools.Entry) Doc {
	d := Doc{
		Name: e.Name, Server: e.Origin.Server, Tool: e.Origin.Name,
		Title: e.Info.Title, Description: e.Info.Description,
		InputSchema: e.Info.InputSchema, Annotations: e.Info.Annotations,
	}
	if d.Title == "" && d.Annotations != nil {
		d.Title = d.Annotations.Title
	}
	return d
}

// DocsOf returns the Docs of entries, in order.
func DocsOf(entries []tools.Entry) []Doc {
	out := make([]Doc, len(entries))
	for i, e := range entries {
		out[i] = DocOf(e)
	}
	return out
}

// SplitName returns the server and tool parts of a catalogue name of the
// form server__tool, or "" and name when it has no "__". For callers that
// know tools only by catalogue name (the text protocol).
func SplitName(name string) (server, tool string) {
	if s, t, ok := strings.Cut(name, "__"); ok && s != "" && t != "" {
		return s, t
	}
	return "", name
}

// schemaText is the part of an input schema the index reads.
type schemaText struct {
	params []string // property names
	text   []string // property descriptions and enum values
}

// readSchema reads the top-level properties of a JSON Schema (and of the
// items of array properties, one level down). An unreadable schema reads
// as nothing: a bad schema must not hide the tool.
func readSchema(raw json.RawMessage) schemaText {
	var out schemaText
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return out
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names) // a fixed order keeps the index reproducible
	for _, name := range names {
		out.params = append(out.params, name)
		var p struct {
			Description string            `json:"description"`
			Title       string            `json:"title"`
			Enum        []json.RawMessage `json:"enum"`
			Items       *struct {
				Description string            `json:"description"`
				Enum        []json.RawMessage `json:"enum"`
			} `json:"items"`
		}
		if json.Unmarshal(s.Properties[name], &p) != nil {
			continue
		}
		out.text = append(out.text, p.Title, p.Description)
		enum := p.Enum
		if p.Items != nil {
			out.text = append(out.text, p.Items.Description)
			enum = append(enum, p.Items.Enum...)
		}
		for _, e := range enum {
			var v string
			if json.Unmarshal(e, &v) == nil {
				out.text = append(out.text, v)
			}
		}
	}
	return out
}

// annotationText turns behaviour hints into words a request may use.
func annotationText(a *tools.Annotations) string {
	if a == nil {
		return ""
	}
	var ws []string
	if a.ReadOnlyHint {
		ws = append(ws, "read only")
	} else if a.Destructive() && a.DestructiveHint != nil {
		ws = append(ws, "destructive")
	}
	return strings.Join(ws, " ")
}
