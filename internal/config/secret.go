package config

import (
	"encoding/json"
	"log/slog"

	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// Redacted is what every printed form of a non-empty [Secret] shows.
const Redacted = redact.Mask

// Secret is a string that never prints: String, GoString, LogValue,
// MarshalJSON and MarshalYAML show "REDACTED" (an empty Secret stays empty,
// so a missing key is still visible). Value returns the secret itself.
type Secret string

// Value returns the secret.
func (s Secret) Value() string { return string(s) }

// String returns "REDACTED", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString keeps %#v from printing the secret.
func (s Secret) GoString() string { return `config.Secret("` + s.String() + `")` }

// LogValue implements [slog.LogValuer].
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON implements [json.Marshaler].
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalYAML implements the YAML marshaler interface.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// looksSecret reports whether a variable or header named name probably holds
// a secret: its name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, AUTH,
// COOKIE or CREDENTIAL, in any case.
func looksSecret(name string) bool { return redact.SecretName(name) }
