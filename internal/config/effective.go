package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// WriteEffective writes c to w as YAML or JSON, in the file's own format, for
// `switchboard config check`. Nothing secret is written: [Secret] fields,
// env and header values whose name looks secret (it contains KEY, TOKEN,
// SECRET, PASSWORD, AUTH, COOKIE...), values that came from such a ${VAR},
// and passwords inside URLs all print as REDACTED. Durations print as Go
// duration strings; absent optional fields are left out.
func (c *Config) WriteEffective(w io.Writer, f Format) error {
	n := c.node("", "", reflect.ValueOf(*c))
	switch f {
	case FormatYAML:
		var buf bytes.Buffer
		if c.Source != "" {
			fmt.Fprintf(&buf, "# effective configuration from %s\n", c.Source)
		}
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(n); err != nil {
			return fmt.Errorf("writing effective config: %w", err)
		}
		if err := enc.Close(); err != nil {
			return fmt.Errorf("writing effective config: %w", err)
		}
		_, err := w.Write(buf.Bytes())
		return err
	case FormatJSON:
		var buf bytes.Buffer
		writeJSON(&buf, n, "")
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	return fmt.Errorf("writing effective config: unknown format %q; use yaml or json", f)
}

var secretType = reflect.TypeFor[Secret]()

// node converts v, found at path under key, into a YAML node, redacting as
// WriteEffective describes. It returns nil for a value to leave out.
func (c *Config) node(path, key string, v reflect.Value) *yaml.Node {
	switch {
	case v.Type() == durationType:
		return scalar("!!str", time.Duration(v.Int()).String())
	case v.Type() == secretType:
		return scalar("!!str", v.Interface().(Secret).String())
	case v.Type() == sandboxType:
		sb := v.Interface().(Sandbox)
		if !sb.Enabled || (sb.Read == nil && sb.Write == nil && !sb.Network && sb.Limits == SandboxLimits{}) {
			return scalar("!!bool", strconv.FormatBool(sb.Enabled))
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			if fv.IsZero() && f.key != "write" {
				continue
			}
			if f.key == "write" && fv.IsNil() {
				continue
			}
			if child := c.node(joinKey(path, f.key), f.key, fv); child != nil {
				n.Content = append(n.Content, scalar("!!str", f.key), child)
			}
		}
		return n
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return c.node(path, key, v.Elem())
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			if strings.Contains(v.Type().Field(f.index).Tag.Get("json"), ",omitempty") && fv.IsZero() {
				continue
			}
			if child := c.node(joinKey(path, f.key), f.key, fv); child != nil {
				n.Content = append(n.Content, scalar("!!str", f.key), child)
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		var keys []string
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		for _, k := range keys {
			child := c.node(joinKey(path, k), "", v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())))
			if child == nil {
				child = scalar("!!null", "null")
			}
			if key == "env" || key == "headers" {
				switch {
				case looksSecret(k) && child.Value != "":
					child = scalar("!!str", Redacted)
				case child.Kind == yaml.ScalarNode:
					// A value under an ordinary name may still hold one:
					// DATABASE_URL=postgres://u:pw@db, a signed URL, a
					// connection string with password=.
					child.Value = redact.Text(child.Value)
				}
			}
			n.Content = append(n.Content, scalar("!!str", k), child)
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if key == "args" && v.Type().Elem().Kind() == reflect.String {
			// A command line: a flag naming a secret hides the value after it.
			args := make([]string, v.Len())
			for i := range args {
				args[i] = v.Index(i).String()
			}
			for i, a := range redact.Args(args) {
				if c.secretPaths[path+"["+strconv.Itoa(i)+"]"] && a != "" {
					a = Redacted
				}
				n.Content = append(n.Content, scalar("!!str", a))
			}
			return n
		}
		for i := range v.Len() {
			n.Content = append(n.Content, c.node(path+"["+strconv.Itoa(i)+"]", "", v.Index(i)))
		}
		return n
	case reflect.String:
		s := v.String()
		switch {
		case s != "" && c.secretPaths[path]:
			s = Redacted
		case key == "url" || key == "baseURL" || key == "spec" || key == "redirectURL":
			s = redact.URL(s)
		default:
			// Any other text may quote a URL with a password or a
			// signature, or a connection string.
			s = redact.Text(s)
		}
		return scalar("!!str", s)
	case reflect.Bool:
		return scalar("!!bool", strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		return scalar("!!int", strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		return scalar("!!float", strconv.FormatFloat(v.Float(), 'g', -1, 64))
	}
	return scalar("!!null", "null")
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

// writeJSON writes a node tree built by node as indented JSON.
func writeJSON(b *bytes.Buffer, n *yaml.Node, indent string) {
	inner := indent + "  "
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			b.WriteString(inner)
			writeJSONString(b, n.Content[i].Value)
			b.WriteString(": ")
			writeJSON(b, n.Content[i+1], inner)
			if i+2 < len(n.Content) {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, c := range n.Content {
			b.WriteString(inner)
			writeJSON(b, c, inner)
			if i+1 < len(n.Content) {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		if n.Tag == "!!str" {
			writeJSONString(b, n.Value)
		} else {
			b.WriteString(n.Value)
		}
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}
