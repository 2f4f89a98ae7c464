package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// now returns the current time as the store keeps it.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// norm returns t as the store keeps it: UTC, microseconds.
func norm(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// orNow returns norm(t), or now when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return now()
	}
	return norm(t)
}

// tsCol scans a time column into *t; NULL gives the zero time.
type tsCol struct{ t *time.Time }

func (c tsCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
	case int64:
		*c.t = time.UnixMicro(v).UTC()
	case time.Time:
		*c.t = norm(v)
	default:
		return fmt.Errorf("scanning time column: unexpected %T", src)
	}
	return nil
}

// toolCall is how a tool call is stored. Arguments is a string so that
// malformed argument JSON from a model (kept as it came, see llm.ToolCall)
// can be stored and read back unchanged.
type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func encodeParts(parts []llm.Part) (string, error) {
	if parts == nil {
		return "", nil
	}
	b, err := json.Marshal(parts)
	if err != nil {
		return "", fmt.Errorf("encoding message content: %w", err)
	}
	return string(b), nil
}

func decodeParts(s string) ([]llm.Part, error) {
	if s == "" {
		return nil, nil
	}
	var parts []llm.Part
	if err := json.Unmarshal([]byte(s), &parts); err != nil {
		return nil, fmt.Errorf("decoding message content: %w", err)
	}
	return parts, nil
}

func encodeCalls(calls []llm.ToolCall) (string, error) {
	if calls == nil {
		return "", nil
	}
	tc := make([]toolCall, len(calls))
	for i, c := range calls {
		tc[i] = toolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}
	}
	b, err := json.Marshal(tc)
	if err != nil {
		return "", fmt.Errorf("encoding tool calls: %w", err)
	}
	return string(b), nil
}

func decodeCalls(s string) ([]llm.ToolCall, error) {
	if s == "" {
		return nil, nil
	}
	var tc []toolCall
	if err := json.Unmarshal([]byte(s), &tc); err != nil {
		return nil, fmt.Errorf("decoding tool calls: %w", err)
	}
	calls := make([]llm.ToolCall, len(tc))
	for i, c := range tc {
		calls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: raw(c.Arguments)}
	}
	return calls, nil
}

// raw returns s as a json.RawMessage; empty gives nil.
func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// rawBytes returns a copy of b as a json.RawMessage; empty gives nil.
func rawBytes(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(append([]byte(nil), b...))
}

// encodeList stores a string slice as JSON; nil becomes NULL so that it
// stays distinct from an empty list.
func encodeList(l []string) (any, error) {
	if l == nil {
		return nil, nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("encoding list: %w", err)
	}
	return string(b), nil
}

func decodeList(s sql.NullString) ([]string, error) {
	if !s.Valid {
		return nil, nil
	}
	l := []string{}
	if err := json.Unmarshal([]byte(s.String), &l); err != nil {
		return nil, fmt.Errorf("decoding list: %w", err)
	}
	return l, nil
}

// nullStr returns s, or NULL when s is empty.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// notFound wraps sql.ErrNoRows as store.ErrNotFound, naming what was missing.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return err
}
