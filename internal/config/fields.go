package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// field is one settable struct field and its key in the file.
type field struct {
	key   string
	index int
}

// fieldsOf lists the keys of struct type t, in declaration order.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || key == "" {
			continue
		}
		out = append(out, field{key: key, index: i})
	}
	return out
}

// ignoredMCPKeys are keys that other MCP hosts write into mcpServers entries
// and that are safe to ignore: approval lists (Cline's autoApprove, Roo
// Code's alwaysAllow; Switchboard's approvals section decides instead), Cline's
// transportType (the transport is inferred from command or url anyway) and
// Roo Code's watchPaths. Keys whose loss would change behaviour silently
// are errors with a hint instead (see mcpKeyHints).
func ignoredMCPKey(key string) bool {
	switch key {
	case "autoApprove", "alwaysAllow", "transportType", "watchPaths":
		return true
	}
	return false
}

// mcpKeyHint explains keys other hosts use for things Switchboard spells
// differently.
func mcpKeyHint(key string) string {
	switch key {
	case "serverUrl", "httpUrl":
		return "Switchboard calls it url (add type: http for Streamable HTTP only)"
	case "includeTools":
		return "use tools: {allow: [...]}"
	case "excludeTools":
		return "use tools: {deny: [...]}"
	case "envFile":
		return "Switchboard does not read env files; list the variables under env, using ${VAR} for values from the environment"
	}
	return ""
}

// topKeyHint explains top-level keys of other hosts' files.
func topKeyHint(key string) string {
	switch key {
	case "servers":
		return "VS Code calls the section servers; Switchboard reads it as mcpServers"
	case "inputs":
		return "VS Code input prompts are not supported; use ${VAR} with the value in the environment"
	}
	return ""
}

// structure decodes a mapping into struct v, reporting unknown keys.
func (d *decoder) structure(path string, n *yaml.Node, v reflect.Value) {
	pairs, ok := d.pairs(path, n)
	if !ok {
		return
	}
	fields := fieldsOf(v.Type())
	isMCP := v.Type() == reflect.TypeFor[MCPServer]()
	var disabledTools []string
	for _, p := range pairs {
		i := slices.IndexFunc(fields, func(f field) bool { return f.key == p.key })
		if i >= 0 {
			d.decode(joinKey(path, p.key), p.value, v.Field(fields[i].index))
			continue
		}
		switch {
		case isMCP && ignoredMCPKey(p.key):
			continue
		case path == "" && ignoredTopKey(p.key):
			continue
		case isMCP && p.key == "disabledTools":
			// Roo Code's list of tool names to hide: the same as tools.deny
			// with each name matched literally.
			var names []string
			d.decode(joinKey(path, p.key), p.value, reflect.ValueOf(&names).Elem())
			disabledTools = append(disabledTools, names...)
			continue
		}
		msg := "unknown key"
		if h := mcpKeyHint(p.key); isMCP && h != "" {
			msg += "; " + h
		} else if h := topKeyHint(p.key); path == "" && h != "" {
			msg += "; " + h
		} else if s := suggest(p.key, fields); s != "" {
			msg += "; did you mean " + s + "?"
		} else {
			msg += "; known keys: " + keyList(fields)
		}
		d.errorf(joinKey(path, p.key), p.keyNode, "%s", msg)
	}
	if len(disabledTools) > 0 {
		tools := v.FieldByName("Tools")
		f := tools.Interface().(Filter)
		for _, name := range disabledTools {
			f.Deny = append(f.Deny, globQuote(name))
		}
		tools.Set(reflect.ValueOf(f))
	}
}

// globQuote escapes the path.Match metacharacters in s.
func globQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func keyList(fields []field) string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return strings.Join(keys, ", ")
}

// suggest returns the known key closest to key when it is a plausible typo
// or a case mistake.
func suggest(key string, fields []field) string {
	best, bestDist := "", 3
	for _, f := range fields {
		if strings.EqualFold(f.key, key) {
			return f.key
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(f.key)); d < bestDist {
			best, bestDist = f.key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
		if c != '_' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
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

// ignoredTopKey reports whether key is a top-level setting of Claude
// Desktop's own file: claude_desktop_config.json can then be used as it is
// (--config), its app settings ignored. They change nothing Switchboard does.
func ignoredTopKey(key string) bool {
	switch key {
	case "globalShortcut", "preferences":
		return true
	}
	return false
}
