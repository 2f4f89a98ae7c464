package openapi

import (
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// operationName is the operationId, or method_path made of letters, digits
// and underscores when there is none ("GET /users/{id}" -> get_users_id).
func operationName(op map[string]any, method, path string) string {
	if id, ok := op["operationId"].(string); ok && strings.TrimSpace(id) != "" {
		return strings.TrimSpace(id)
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	under := true // collapse runs and avoid a doubled separator
	b.WriteByte('_')
	for _, r := range path {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// description joins summary and description, skipping a description that
// merely repeats the summary.
func description(op map[string]any, method, path string) string {
	summary, _ := op["summary"].(string)
	desc, _ := op["description"].(string)
	summary, desc = strings.TrimSpace(summary), strings.TrimSpace(desc)
	var parts []string
	if d, _ := op["deprecated"].(bool); d {
		parts = append(parts, "Deprecated.")
	}
	switch {
	case summary != "" && desc != "" && !strings.HasPrefix(desc, summary):
		parts = append(parts, summary+"\n\n"+desc)
	case desc != "":
		parts = append(parts, desc)
	case summary != "":
		parts = append(parts, summary)
	default:
		parts = append(parts, method+" "+path)
	}
	return strings.Join(parts, " ")
}

// annotations: GET and HEAD are read-only by HTTP's definition; any other
// method may change the server, so it is destructive unless the document
// vouches otherwise with x-switchboard-readonly: true. PUT and DELETE are
// idempotent by HTTP's definition.
func annotations(method string, op map[string]any) *tools.Annotations {
	a := &tools.Annotations{}
	if title, ok := op["summary"].(string); ok {
		a.Title = strings.TrimSpace(title)
	}
	ro, _ := op["x-switchboard-readonly"].(bool)
	switch {
	case method == "GET" || method == "HEAD" || ro:
		a.ReadOnlyHint = true
	default:
		t := true
		a.DestructiveHint = &t
		a.IdempotentHint = method == "PUT" || method == "DELETE"
	}
	return a
}
