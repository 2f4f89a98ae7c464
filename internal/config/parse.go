package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format is a config file format.
type Format string

const (
	FormatYAML Format = "yaml"
	FormatJSON Format = "json"
)

// formatOf picks the format from the file extension, and for an unknown
// extension from the content: JSON starts with '{'.
func formatOf(name string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".yaml", ".yml":
		return FormatYAML
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

// parse turns the file into a node tree. It returns nil for an empty file.
// JSON is read with encoding/json rather than as YAML: YAML rejects some
// valid JSON (tab indentation, "\/", surrogate pairs).
func parse(data []byte, f Format) (*yaml.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if f == FormatJSON {
		return parseJSON(data)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, fmt.Errorf("parsing YAML: %v", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parsing YAML: the file holds more than one document (a second ---); keep one")
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// jsonParser builds yaml nodes from JSON tokens, tracking line numbers.
type jsonParser struct {
	data []byte
	dec  *json.Decoder
	// off and line: line is the line number of byte offset off.
	off, line int
}

func parseJSON(data []byte) (*yaml.Node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), line: 1}
	p.dec.UseNumber()
	n, err := p.value()
	if err == nil {
		if _, err2 := p.dec.Token(); !errors.Is(err2, io.EOF) {
			err = fmt.Errorf("unexpected data after the top-level value (line %d)", p.lineAt(int(p.dec.InputOffset())))
		}
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("parsing JSON: %v (line %d)", se, p.lineAt(int(se.Offset)))
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("parsing JSON: the file ends too early; a } or ] is missing")
		}
		return nil, fmt.Errorf("parsing JSON: %v", err)
	}
	return n, nil
}

// lineAt returns the line of byte offset off; offsets only grow.
func (p *jsonParser) lineAt(off int) int {
	off = min(off, len(p.data))
	if off > p.off {
		p.line += bytes.Count(p.data[p.off:off], []byte("\n"))
		p.off = off
	}
	return p.line
}

// tokenLine returns the line where the next token starts.
func (p *jsonParser) tokenLine() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	return p.lineAt(off)
}

func (p *jsonParser) value() (*yaml.Node, error) {
	line := p.tokenLine()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
			for p.dec.More() {
				kline := p.tokenLine()
				k, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				ks, _ := k.(string)
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ks, Line: kline}, v)
			}
			_, err := p.dec.Token()
			return n, err
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		for p.dec.More() {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		_, err := p.dec.Token()
		return n, err
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Line: line}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t), Line: line}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t), Line: line}, nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
}
