package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	segjson "github.com/segmentio/encoding/json"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Argument validation.
//
// Each distinct input schema is compiled once, on the first call of a tool
// that uses it, and shared by every tool with the same schema text. Schemas
// are compiled without a loader: a "$ref" outside the schema document (a file
// or URL) is not fetched, so a remote server cannot make Switchboard read
// local files or the network.
//
// Validation is lenient about broken schemas: a schema that does not
// compile (invalid JSON Schema, an external $ref, a regular expression Go
// cannot compile) is logged once at Warn and the tool is called without
// validation, because the tool or its server still validates, and a tool
// that cannot be called at all helps nobody.

// maxProblems bounds how many validation problems one result lists.
const maxProblems = 20

const schemaURL = "mem:///input-schema.json"

type argValidator struct {
	schema []byte

	once   sync.Once
	sch    *jsonschema.Schema // nil: nothing to check, or the schema did not compile
	simple *simpleSchema      // the schema's fast check, when it is that simple
}

func newArgValidator(schema []byte) *argValidator {
	return &argValidator{schema: schema}
}

// noLoader refuses every external document.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s: external schema references are not followed", url)
}

func (v *argValidator) compiled(logger *slog.Logger, tool string) *jsonschema.Schema {
	v.once.Do(func() {
		trimmed := bytes.TrimSpace(v.schema)
		if len(trimmed) == 0 || string(trimmed) == "{}" || string(trimmed) == "null" || string(trimmed) == "true" {
			return
		}
		sch, err := compileSchema(trimmed)
		if err != nil {
			logger.Warn("input schema does not compile; calling without validation", logKeyTool, tool, logKeyErr, err)
			return
		}
		v.sch = sch
		v.simple = compileSimple(trimmed)
	})
	return v.sch
}

func compileSchema(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("parsing input schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("adding input schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("compiling input schema: %w", err)
	}
	return sch, nil
}

// check parses args and validates them. It returns the arguments to pass
// on ({} for nil, empty or null) or, when they are not acceptable, the
// problems as one line for the model.
func (v *argValidator) check(logger *slog.Logger, tool string, args []byte) ([]byte, string) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return nil, "arguments must be a JSON object, got " + jsonKind(trimmed)
	}
	sch := v.compiled(logger, tool)
	if sch == nil && json.Valid(trimmed) {
		return trimmed, "" // nothing to validate: a syntax check needs no parse tree
	}
	inst, err := parseArgs(trimmed)
	if err != nil {
		return nil, "arguments are not valid JSON: " + err.Error()
	}
	if sch == nil || v.simple != nil && v.simple.valid(inst) {
		return trimmed, ""
	}
	err = sch.Validate(inst)
	if err == nil {
		return trimmed, ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err.Error()
	}
	return nil, strings.Join(problems(ve), "; ")
}

// parseArgs decodes b as jsonschema.UnmarshalJSON does (numbers as
// json.Number, one value and nothing after it), through segmentio's
// decoder, which took half the time and allocations: validation was
// 4% of a proxied call's CPU. Nesting deeper than maxArgDepth
// (segmentio recurses without a bound) and anything it refuses go to
// jsonschema.UnmarshalJSON, whose answer and errors stand.
// TestParseArgsAsJSONSchema holds the two to the same values, invalid
// UTF-8 and lone surrogates included.
func parseArgs(b []byte) (any, error) {
	if !JSONDeeperThan(b, maxArgDepth) {
		var v any
		if rest, err := segjson.Parse(b, &v, segjson.UseNumber); err == nil && len(bytes.TrimSpace(rest)) == 0 {
			return v, nil
		}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// maxArgDepth bounds the nesting parseArgs hands to segmentio.
const maxArgDepth = 1000

// JSONDeeperThan reports whether objects and arrays in the JSON text b
// nest deeper than max, skipping the contents of strings. It reads any
// bytes; a syntax error is for the decoder to find.
func JSONDeeperThan(b []byte, max int) bool {
	if len(b) <= max {
		return false // each level takes a byte at least
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

func jsonKind(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		if b[0] == '-' || b[0] >= '0' && b[0] <= '9' {
			return "a number"
		}
		return "text that is not JSON"
	}
}

// problems flattens a validation error into "path: message" lines, one per
// leaf, deduplicated, at most maxProblems.
func problems(ve *jsonschema.ValidationError) []string {
	p := message.NewPrinter(language.English)
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := pointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, pointer(append(slices.Clip(e.InstanceLocation), m))+": missing required property")
			}
		case *kind.AdditionalProperties:
			for _, m := range k.Properties {
				out = append(out, pointer(append(slices.Clip(e.InstanceLocation), m))+": property not allowed")
			}
		case *kind.Type:
			out = append(out, fmt.Sprintf("%s: expected %s, got %s", at, strings.Join(k.Want, " or "), k.Got))
		default:
			out = append(out, at+": "+e.ErrorKind.LocalizedString(p))
		}
	}
	walk(ve)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxProblems {
		n := len(out) - maxProblems
		out = append(out[:maxProblems], fmt.Sprintf("and %d more", n))
	}
	return out
}

// pointer renders an instance location as a JSON Pointer; the root is "/".
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
