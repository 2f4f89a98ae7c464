package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// buildRequest makes op's HTTP request from a call's arguments: parameters
// serialised by their style (OpenAPI's defaults: simple for path and
// header, form with explode for query and cookie), and the JSON body split
// back out by the rule in body.go.
func buildRequest(ctx context.Context, base string, op *operation, args map[string]any) (*http.Request, error) {
	pathVals := map[string]string{}
	var query []string
	headers := http.Header{}
	var cookies []string
	used := map[string]bool{}
	for _, p := range op.params {
		v, ok := args[p.key]
		used[p.key] = true
		if !ok || v == nil {
			if p.in == "path" {
				return nil, fmt.Errorf("missing required path parameter %q", p.key)
			}
			continue
		}
		switch p.in {
		case "path":
			pv := pathValue(p, v)
			if pv == "." || pv == ".." || pv == "" {
				// These would name another resource once the server
				// cleans the path (or match no route at all).
				return nil, fmt.Errorf("path parameter %q cannot be %q", p.key, pv)
			}
			pathVals[p.name] = pv
		case "query":
			query = append(query, queryPairs(p, v)...)
		case "header":
			headers.Set(p.name, simpleValue(p, v, p.explode, identity))
		case "cookie":
			cookies = append(cookies, p.name+"="+simpleValue(p, v, false, url.QueryEscape))
		}
	}
	u, err := expandPath(op.path, pathVals)
	if err != nil {
		return nil, err
	}
	full := base + u
	if len(query) > 0 {
		full += "?" + strings.Join(query, "&")
	}
	body, err := requestBody(op, args, used)
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, op.method, full, rd)
	if err != nil {
		return nil, fmt.Errorf("building request for %s %s: %w", op.method, op.path, err)
	}
	req.Header = headers
	if len(cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.8")
	if body != nil {
		req.Header.Set("Content-Type", op.mediaType)
	}
	return req, nil
}

// requestBody returns the JSON body, or nil when none is to be sent.
func requestBody(op *operation, args map[string]any, used map[string]bool) ([]byte, error) {
	var v any
	switch op.body {
	case bodyNone:
		return nil, nil
	case bodyNested:
		b, ok := args[op.bodyKey]
		if !ok || b == nil {
			return nil, nil
		}
		v = b
	case bodyMerged:
		obj := map[string]any{}
		for k, a := range args {
			if !used[k] {
				obj[k] = a
			}
		}
		if len(obj) == 0 && !op.bodyRequired {
			return nil, nil
		}
		v = obj
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding request body: %w", err)
	}
	return b, nil
}

// expandPath fills the {name} segments of a path template.
func expandPath(tmpl string, vals map[string]string) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), nil
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("path template %q has an unclosed {", tmpl)
		}
		name := tmpl[i+1 : i+j]
		v, ok := vals[name]
		if !ok {
			return "", fmt.Errorf("path template needs %q, which the document does not declare as a path parameter", name)
		}
		b.WriteString(tmpl[:i])
		b.WriteString(v)
		tmpl = tmpl[i+j+1:]
	}
}

func identity(s string) string { return s }

// scalar formats one primitive value; objects and arrays nested deeper than
// a style can express are sent as JSON text.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sortedPairs returns an object's keys in order, for stable requests.
func sortedPairs(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// simpleValue serialises v in the simple style (path, header): arrays
// comma-separated, objects k,v,k,v or k=v,k=v when exploded. esc escapes
// each piece.
func simpleValue(p param, v any, explode bool, esc func(string) string) string {
	if p.asJSON {
		b, _ := json.Marshal(v)
		return esc(string(b))
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = esc(scalar(e))
		}
		return strings.Join(parts, ",")
	case map[string]any:
		var parts []string
		for _, k := range sortedPairs(x) {
			if explode {
				parts = append(parts, esc(k)+"="+esc(scalar(x[k])))
			} else {
				parts = append(parts, esc(k), esc(scalar(x[k])))
			}
		}
		return strings.Join(parts, ",")
	}
	return esc(scalar(v))
}

// pathValue serialises a path parameter in its style: simple (a,b),
// label (.a.b) or matrix (;id=a,b), each piece percent-escaped so that a
// value cannot add path segments.
func pathValue(p param, v any) string {
	switch p.style {
	case "label":
		s := simpleValue(p, v, p.explode, url.PathEscape)
		if p.explode {
			s = strings.ReplaceAll(s, ",", ".")
		}
		return "." + s
	case "matrix":
		if arr, ok := v.([]any); ok && p.explode {
			var b strings.Builder
			for _, e := range arr {
				b.WriteString(";" + p.name + "=" + url.PathEscape(scalar(e)))
			}
			return b.String()
		}
		return ";" + p.name + "=" + simpleValue(p, v, false, url.PathEscape)
	}
	return simpleValue(p, v, p.explode, url.PathEscape)
}

// queryPairs serialises a query parameter as name=value pairs: form style
// repeats the name for each array item when exploded (the default) and
// joins with commas otherwise; spaceDelimited and pipeDelimited join with
// their separator; deepObject writes name[key]=value.
func queryPairs(p param, v any) []string {
	esc := url.QueryEscape
	name := esc(p.name)
	if p.asJSON {
		b, _ := json.Marshal(v)
		return []string{name + "=" + esc(string(b))}
	}
	switch x := v.(type) {
	case []any:
		sep := ","
		switch p.style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "|"
		}
		if p.explode {
			out := make([]string, len(x))
			for i, e := range x {
				out[i] = name + "=" + esc(scalar(e))
			}
			return out
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = esc(scalar(e))
		}
		return []string{name + "=" + strings.Join(parts, sep)}
	case map[string]any:
		var out []string
		switch {
		case p.style == "deepObject":
			for _, k := range sortedPairs(x) {
				out = append(out, name+"%5B"+esc(k)+"%5D="+esc(scalar(x[k])))
			}
		case p.explode:
			for _, k := range sortedPairs(x) {
				out = append(out, esc(k)+"="+esc(scalar(x[k])))
			}
		default:
			out = []string{name + "=" + simpleValue(p, x, false, esc)}
		}
		return out
	}
	return []string{name + "=" + esc(scalar(v))}
}
