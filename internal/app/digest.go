package app

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// The kinds of configuration entries a reload applies one by one.
const (
	KindMCPServers     = "mcpServers"
	KindOpenAPIServers = "openapiServers"
	KindModels         = "models"
	KindAgents         = "agents"
	// KindSettings holds the other top-level sections, by their key.
	KindSettings = "settings"
)

// Digests is a digest per configuration entry: kind, then name. Two
// configurations whose entry has the same digest configure it the same
// way, secrets included (they are hashed, never stored).
type Digests map[string]map[string]string

// liveSettings are the sections a reload applies besides the entries:
// they change what the servers' and models' entries mean, so their effect
// shows there (a changed sandbox default restarts the stdio servers it
// applies to), are read at each use (defaultModel), or are handed to
// their owner (assistant, to the runtime; approvals, limits and
// rateLimits, to the gate, the runtime and the HTTP server, for the calls
// and turns that start after the reload).
var liveSettings = []string{"mcpRoots", "sandbox", "defaultModel", "assistant", "approvals", "limits", "rateLimits", "context"}

// digests computes the digest of every entry of cfg. MCP servers are
// digested as the host gets them, after defaults (roots, sandbox) are
// applied, so that a changed default shows on the servers it changes.
func digests(cfg *config.Config) Digests {
	d := Digests{
		KindMCPServers: {}, KindOpenAPIServers: {}, KindModels: {}, KindAgents: {}, KindSettings: {},
	}
	// Disabled entries run nothing: the same as none.
	for _, sc := range mcpServers(cfg, nil) {
		d[KindMCPServers][sc.Name] = digest(sc)
	}
	for name, s := range cfg.OpenAPIServers {
		if !s.Disabled {
			d[KindOpenAPIServers][name] = digest(s)
		}
	}
	for name, m := range cfg.Models {
		d[KindModels][name] = digest(m)
	}
	for name, ag := range cfg.Agents {
		d[KindAgents][name] = digest(ag)
	}
	v := reflect.ValueOf(cfg).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch key {
		case "", "-", KindMCPServers, KindOpenAPIServers, KindModels, KindAgents:
			continue
		}
		if f.IsExported() {
			d[KindSettings][key] = digest(v.Field(i).Interface())
		}
	}
	return d
}

// digest is a SHA-256 of v's exported content in a canonical form: map
// keys sorted, strings by their value (so a config.Secret counts by its
// secret, which JSON would print as REDACTED), every value tagged with its
// kind and length so that no two values share an encoding.
func digest(v any) string {
	h := sha256.New()
	writeCanonical(h, reflect.ValueOf(v))
	return hex.EncodeToString(h.Sum(nil))
}

func writeCanonical(h hash.Hash, v reflect.Value) {
	num := func(n uint64) { _ = binary.Write(h, binary.BigEndian, n) }
	str := func(s string) { num(uint64(len(s))); h.Write([]byte(s)) }
	if !v.IsValid() {
		h.Write([]byte{0})
		return
	}
	h.Write([]byte{byte(v.Kind())})
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			h.Write([]byte{0})
			return
		}
		h.Write([]byte{1})
		writeCanonical(h, v.Elem())
	case reflect.String:
		str(v.String())
	case reflect.Bool:
		if v.Bool() {
			num(1)
		} else {
			num(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		num(v.Uint())
	case reflect.Float32, reflect.Float64:
		num(math.Float64bits(v.Float()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			h.Write([]byte{0})
			return
		}
		num(uint64(v.Len()))
		for i := range v.Len() {
			writeCanonical(h, v.Index(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(keyString(a), keyString(b)) })
		num(uint64(len(keys)))
		for _, k := range keys {
			writeCanonical(h, k)
			writeCanonical(h, v.MapIndex(k))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if !t.Field(i).IsExported() {
				continue // Load's bookkeeping, not configuration
			}
			str(t.Field(i).Name)
			writeCanonical(h, v.Field(i))
		}
	default:
		// Functions and channels configure nothing a file can say.
		h.Write([]byte{0})
	}
}

func keyString(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}
