package textcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Part is one piece of a model's reply: either text for the user or a tool
// call. Exactly one of Text and Call is meaningful: Call is nil for text.
type Part struct {
	Text string
	Call *Call
	// Reasoning marks text that is the model's own reasoning (<think>,
	// harmony's analysis channel...): shown as reasoning, never run, even
	// when it holds something that looks like a call.
	Reasoning bool
}

// Call is a tool call found in a reply.
type Call struct {
	// Name is the catalogue name when the tool is known (after resolving
	// case and "server__" prefixes), otherwise the name as written.
	Name string
	// Arguments is a compact JSON object; "{}" when the call gave none.
	Arguments json.RawMessage
	// Raw is the source text of the block the call came from. Several calls
	// written in one block share it.
	Raw string
	// Repaired reports that the JSON needed a repair (trailing comma, single
	// quotes, a missing closer...).
	Repaired bool
	// Err is nil for a call that can run. Otherwise it is an
	// *[UnknownToolError] or a *[MalformedCallError]: the model clearly
	// meant to call a tool, and its message is what to tell the model.
	Err error
}

// UnknownToolError reports a call to a tool that is not in the catalogue.
type UnknownToolError struct {
	Name string
	// Available lists the catalogue names, in catalogue order.
	Available []string
}

// maxListedNames bounds the list of names in error messages.
const maxListedNames = 30

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("no tool named %q; available: %s", e.Name, listNames(e.Available, maxListedNames))
}

// MalformedCallError reports a tool-call block whose content is not a call.
type MalformedCallError struct {
	Reason string
}

func (e *MalformedCallError) Error() string {
	return "the tool call could not be read: " + e.Reason +
		`; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`
}

// listNames joins names, cut after max with a count of the rest.
func listNames(names []string, max int) string {
	if len(names) == 0 {
		return "(none)"
	}
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// Keys accepted for the tool name and for the arguments, in order of
// preference when a model writes more than one.
var (
	nameKeys = [...]string{"tool_name", "tool", "name", "function"}
	argKeys  = [...]string{"arguments", "args", "parameters", "input"}
)

// isCallKey reports whether k may appear in a call object: a name or
// arguments key, or the harmless "id" and "type" of OpenAI-shaped calls.
func isCallKey(k string) bool {
	return slices.Contains(nameKeys[:], k) || slices.Contains(argKeys[:], k) || k == "id" || k == "type"
}

// strictness says how much a block must look like a call. Tagged blocks are
// explicit, so almost anything in them is a (possibly malformed) call. Bare
// and fenced JSON is often JSON the model shows the user, so it counts only
// when it has exactly the shape of a call and names a known tool.
type strictness int

const (
	tagged strictness = iota
	untagged
)

// callFromValue reads a call from one strict JSON value. It returns an error
// when the value is not a call at all.
func (p *Parser) callFromValue(v json.RawMessage, mode strictness) (*Call, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		return nil, errors.New("expected a JSON object")
	}
	// OpenAI shape: {"type":"function","function":{"name":..,"arguments":..}}.
	if f, ok := obj["function"]; ok && len(f) > 0 && f[0] == '{' {
		for k := range obj {
			if k != "function" && k != "id" && k != "type" {
				return nil, fmt.Errorf("unexpected key %q next to \"function\"", k)
			}
		}
		return p.callFromValue(f, mode)
	}
	if c, ok := p.nameAsKey(obj); ok {
		return c, nil
	}
	var name string
	nameKey := ""
	for _, k := range nameKeys {
		if raw, ok := obj[k]; ok {
			if err := json.Unmarshal(raw, &name); err != nil {
				return nil, fmt.Errorf("%q must be a string", k)
			}
			nameKey = k
			break
		}
	}
	if nameKey == "" {
		return nil, errors.New(`no tool name: expected "tool_name"`)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, errors.New("empty tool name")
	}
	argKey := ""
	for _, k := range argKeys {
		if _, ok := obj[k]; ok {
			argKey = k
			break
		}
	}
	c := &Call{Name: name}
	switch {
	case argKey != "":
		args, repaired, err := argumentsFrom(obj[argKey])
		if err != nil {
			return nil, err
		}
		c.Arguments, c.Repaired = args, repaired
		if mode == untagged {
			for k := range obj {
				if !isCallKey(k) {
					return nil, fmt.Errorf("unexpected key %q", k)
				}
			}
		}
	case mode == tagged:
		// Some models put the arguments next to the name. Inside an explicit
		// block that reading is unambiguous.
		rest := make(map[string]json.RawMessage, len(obj))
		for k, raw := range obj {
			if k != nameKey && k != "id" && k != "type" {
				rest[k] = raw
			}
		}
		b, err := json.Marshal(rest)
		if err != nil {
			return nil, fmt.Errorf("encoding arguments: %w", err)
		}
		c.Arguments = b
	default:
		return nil, errors.New("no arguments")
	}
	if resolved, ok := p.resolve(name); ok {
		c.Name = resolved
	} else {
		c.Err = &UnknownToolError{Name: name, Available: p.names}
	}
	return c, nil
}

// argumentsFrom reads arguments given as an object, as a string holding an
// object, or as null.
func argumentsFrom(raw json.RawMessage) (json.RawMessage, bool, error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return json.RawMessage("{}"), false, nil
	case raw[0] == '{':
		return raw, false, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, fmt.Errorf("reading arguments string: %w", err)
		}
		if strings.TrimSpace(s) == "" {
			return json.RawMessage("{}"), false, nil
		}
		out, n, repaired, err := repairValue(s, true)
		if err != nil {
			return nil, false, fmt.Errorf("arguments string is not JSON: %w", err)
		}
		if strings.TrimSpace(s[n:]) != "" || out[0] != '{' {
			return nil, false, errors.New("arguments string must hold one JSON object")
		}
		return out, repaired, nil
	default:
		return nil, false, errors.New("arguments must be a JSON object")
	}
}
