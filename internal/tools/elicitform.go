package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// ElicitKind is the kind of one field of an elicitation form: the
// primitive types the MCP specification allows in a requested schema.
type ElicitKind string

const (
	ElicitString  ElicitKind = "string"
	ElicitNumber  ElicitKind = "number"
	ElicitInteger ElicitKind = "integer"
	ElicitBoolean ElicitKind = "boolean"
	// ElicitChoice is a string from a list: enum (with the legacy
	// enumNames as labels) or oneOf of {const, title}.
	ElicitChoice ElicitKind = "choice"
	// ElicitMulti is an array of strings from a list: items with enum or
	// anyOf of {const, title}.
	ElicitMulti ElicitKind = "multi"
)

// ElicitOption is one value of a choice, with the label shown for it.
type ElicitOption struct {
	Value string
	Label string
}

// ElicitField is one property of a requested schema.
type ElicitField struct {
	Name        string
	Title       string
	Description string
	Kind        ElicitKind
	Required    bool
	// Format is a string's format: email, uri, date or date-time.
	Format               string
	MinLength, MaxLength *int
	Pattern              *regexp.Regexp
	Minimum, Maximum     *float64
	// Options are the values of a choice or multi field.
	Options            []ElicitOption
	MinItems, MaxItems *int
	// Default is the schema's default value, nil when it has none.
	Default any
}

// Label is what a person sees as the field's name: its title, else its
// property name.
func (f *ElicitField) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// ElicitForm is a requested schema read as a form: its fields in the
// order the schema lists them.
type ElicitForm struct {
	Fields []ElicitField
}

// elicitProp is the JSON of one property of a requested schema; what the
// specification does not allow is refused, not ignored.
type elicitProp struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Pattern     *string         `json:"pattern"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []elicitConst   `json:"oneOf"`
	AnyOf       []elicitConst   `json:"anyOf"`
	Items       *elicitProp     `json:"items"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Default     json.RawMessage `json:"default"`
	Properties  json.RawMessage `json:"properties"`
}

type elicitConst struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// ParseElicitForm reads a requested schema (an object whose properties are
// primitives, as the MCP specification restricts it) into a form. A
// schema that is not such an object, a property of another type, nested
// properties or a pattern that does not compile are errors naming the
// property. An empty schema is a form with no fields.
func ParseElicitForm(schema json.RawMessage) (*ElicitForm, error) {
	if len(bytes.TrimSpace(schema)) == 0 || bytes.Equal(bytes.TrimSpace(schema), []byte("null")) {
		return &ElicitForm{}, nil
	}
	var root struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("requested schema is not a JSON object: %w", err)
	}
	if root.Type != "" && root.Type != "object" {
		return nil, fmt.Errorf("requested schema has type %q; it must be an object", root.Type)
	}
	names, err := objectKeys(root.Properties)
	if err != nil {
		return nil, fmt.Errorf("requested schema's properties: %w", err)
	}
	var props map[string]elicitProp
	if len(names) > 0 {
		if err := json.Unmarshal(root.Properties, &props); err != nil {
			return nil, fmt.Errorf("requested schema's properties: %w", err)
		}
	}
	required := map[string]bool{}
	for _, r := range root.Required {
		if _, ok := props[r]; !ok {
			return nil, fmt.Errorf("requested schema requires %q, which is not one of its properties", r)
		}
		required[r] = true
	}
	form := &ElicitForm{Fields: make([]ElicitField, 0, len(names))}
	for _, name := range names {
		f, err := parseElicitField(name, props[name])
		if err != nil {
			return nil, err
		}
		f.Required = required[name]
		form.Fields = append(form.Fields, f)
	}
	return form, nil
}

func parseElicitField(name string, p elicitProp) (ElicitField, error) {
	f := ElicitField{
		Name: name, Title: p.Title, Description: p.Description, Format: p.Format,
		MinLength: p.MinLength, MaxLength: p.MaxLength, Minimum: p.Minimum, Maximum: p.Maximum,
		MinItems: p.MinItems, MaxItems: p.MaxItems,
	}
	if len(p.Properties) > 0 {
		return f, fmt.Errorf("property %q has nested properties; an elicitation form has primitive fields only", name)
	}
	switch {
	case p.Type == "array":
		f.Kind = ElicitMulti
		if p.Items == nil {
			return f, fmt.Errorf("property %q is an array without items; a multi-select needs items with enum or anyOf", name)
		}
		f.Options = options(p.Items.Enum, nil, p.Items.AnyOf)
		if len(f.Options) == 0 {
			return f, fmt.Errorf("property %q is an array whose items list no values (enum or anyOf)", name)
		}
	case (p.Type == "string" || p.Type == "") && (len(p.Enum) > 0 || len(p.OneOf) > 0):
		if len(p.EnumNames) > 0 && len(p.EnumNames) != len(p.Enum) {
			return f, fmt.Errorf("property %q has %d enum values but %d enumNames", name, len(p.Enum), len(p.EnumNames))
		}
		f.Kind = ElicitChoice
		f.Options = options(p.Enum, p.EnumNames, p.OneOf)
	case p.Type == "string":
		f.Kind = ElicitString
		switch p.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return f, fmt.Errorf("property %q has format %q; elicitation allows email, uri, date and date-time", name, p.Format)
		}
		if p.Pattern != nil {
			re, err := regexp.Compile(*p.Pattern)
			if err != nil {
				return f, fmt.Errorf("property %q has a pattern that does not compile: %w", name, err)
			}
			f.Pattern = re
		}
	case p.Type == "number", p.Type == "integer", p.Type == "boolean":
		f.Kind = ElicitKind(p.Type)
	default:
		return f, fmt.Errorf("property %q has type %q; elicitation allows string, number, integer, boolean and enums", name, p.Type)
	}
	if len(p.Default) > 0 && !bytes.Equal(p.Default, []byte("null")) {
		if err := json.Unmarshal(p.Default, &f.Default); err != nil {
			return f, fmt.Errorf("property %q: default: %w", name, err)
		}
		// A default the field itself would refuse is left out rather
		// than offered.
		if f.check(f.Default) != nil {
			f.Default = nil
		}
	}
	return f, nil
}

func options(enum, names []string, consts []elicitConst) []ElicitOption {
	var out []ElicitOption
	for i, v := range enum {
		o := ElicitOption{Value: v, Label: v}
		if i < len(names) && names[i] != "" {
			o.Label = names[i]
		}
		out = append(out, o)
	}
	for _, c := range consts {
		o := ElicitOption{Value: c.Const, Label: c.Title}
		if o.Label == "" {
			o.Label = c.Const
		}
		out = append(out, o)
	}
	return out
}

// objectKeys returns the keys of a JSON object in the order written.
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if k := t.(string); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
