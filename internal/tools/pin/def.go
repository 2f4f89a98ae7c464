package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// definition is what a pin covers: everything a model reads about a tool
// besides its name (the name is the key). Title and the output schema are
// in it too, since a changed title reaches the model as much as a changed
// description does.
type definition struct {
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description"`
	InputSchema  any                `json:"inputSchema"`
	OutputSchema any                `json:"outputSchema,omitempty"`
	Annotations  *tools.Annotations `json:"annotations,omitempty"`
}

// Definition returns the canonical JSON of in's definition and its hash
// (hex SHA-256). Schemas are re-encoded with sorted keys, so a server that
// sends the same schema with its keys in another order is not a change.
func Definition(in tools.Info) (def []byte, hash string, err error) {
	d := definition{
		Title: in.Title, Description: in.Description, Annotations: in.Annotations,
		InputSchema: canonical(in.InputSchema), OutputSchema: canonical(in.OutputSchema),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, "", fmt.Errorf("tool %s definition: %w", in.Name, err)
	}
	def = bytes.TrimRight(b.Bytes(), "\n")
	sum := sha256.Sum256(def)
	return def, hex.EncodeToString(sum[:]), nil
}

// canonical decodes raw JSON into generic values; nil for none. Numbers
// stay json.Number so that they are re-encoded as they came. A schema that
// is not JSON is kept as its text: the tool is still pinned (the registry
// keeps such tools callable), and a change of that text is still a change.
func canonical(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return string(raw)
	}
	return v
}
