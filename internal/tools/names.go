package tools

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// This file implements the naming rule documented on [Registry].

const (
	maxNameLen  = 64
	shortHexLen = 8
	longHexLen  = 16
)

// nameByte reports whether b may appear in a catalogue name.
func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// ValidName reports whether name is a valid catalogue name:
// ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > maxNameLen || !isLetter(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func onlyNameBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// plainServer reports whether server can prefix a kept name unambiguously.
func plainServer(server string) bool {
	return server != "" && isLetter(server[0]) && onlyNameBytes(server) &&
		!strings.Contains(server, "__") && !strings.HasSuffix(server, "_")
}

// baseName returns the unhashed name of o and whether it may be kept as is
// (rule 2 of the naming rule).
func baseName(o Origin) (string, bool) {
	if o.Kind == KindBuiltin {
		return o.Name, ValidName(o.Name) && !strings.Contains(o.Name, "__")
	}
	base := o.Server + "__" + o.Name
	keep := plainServer(o.Server) && o.Name != "" && onlyNameBytes(o.Name) && len(base) <= maxNameLen
	return base, keep
}

// primaryName is the name rules 1 to 3 give to o.
func primaryName(o Origin) string {
	base, keep := baseName(o)
	if keep {
		return base
	}
	return hashedName(base, originHash(o, ""), shortHexLen)
}

// hashedName sanitises base and appends "_" and hexLen hex digits of sum.
func hashedName(base string, sum []byte, hexLen int) string {
	var b strings.Builder
	b.Grow(maxNameLen)
	if base == "" || !isLetter(base[0]) {
		b.WriteByte('t')
	}
	room := maxNameLen - 1 - hexLen
	for _, r := range base {
		if b.Len() >= room {
			break
		}
		if r < 0x80 && nameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(sum)[:hexLen])
	return b.String()
}

func originHash(o Origin, salt string) []byte {
	h := sha256.New()
	h.Write([]byte(o.Kind))
	h.Write([]byte{0})
	h.Write([]byte(o.Server))
	h.Write([]byte{0})
	h.Write([]byte(o.Name))
	if salt != "" {
		h.Write([]byte{0})
		h.Write([]byte(salt))
	}
	return h.Sum(nil)
}

func kindRank(k Kind) int {
	if k == KindBuiltin {
		return 0
	}
	return 1
}

// compareOrigins orders origins as [Registry.List] does: built-ins first, then
// by server, then by tool name (kind breaks the remaining ties).
func compareOrigins(a, b Origin) int {
	return cmp.Or(
		cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)),
		cmp.Compare(a.Server, b.Server),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.Kind, b.Kind),
	)
}

// assignNames returns the catalogue name of each origin (same index). Origins
// must be distinct. The result depends only on the set of origins.
func assignNames(origins []Origin) []string {
	primaries := make([]string, len(origins))
	for i, o := range origins {
		primaries[i] = primaryName(o)
	}
	return resolveNames(origins, primaries)
}

// resolveNames applies rule 4 to origins whose rule 1-3 names are primaries
// (same index), computed once per tool when its source is set.
func resolveNames(origins []Origin, primaries []string) []string {
	names := slices.Clone(primaries)
	idx := make([]int, len(origins))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return compareOrigins(origins[a], origins[b]) })

	// Rule 4: the first origin in order keeps a contested name. Winners are
	// decided for all names before any loser is renamed, so a renamed loser
	// can never take a name some later origin holds by right.
	taken := make(map[string]bool, len(origins))
	var losers []int
	for _, i := range idx {
		if taken[names[i]] {
			losers = append(losers, i)
			continue
		}
		taken[names[i]] = true
	}
	for _, i := range losers {
		base, _ := baseName(origins[i])
		for n := 1; ; n++ {
			cand := hashedName(base, originHash(origins[i], strconv.Itoa(n)), longHexLen)
			if !taken[cand] {
				names[i] = cand
				taken[cand] = true
				break
			}
		}
	}
	return names
}
