package config

import (
	"errors"
	"slices"
	"strings"
)

// alsoInvalid joins decodeErr, the problems of keys and values that did
// not decode, with what Validate finds in the parts of c that did, so a
// refused edit lists every problem at once. A validation problem on a
// field that holds or is held by one that did not decode is left out: it
// only repeats that problem (an unknown serverUrl leaves the server
// without a url). After errTooLarge the file was read in part: only that.
func alsoInvalid(decodeErr error, c *Config) error {
	if errors.Is(decodeErr, errTooLarge) {
		return decodeErr
	}
	var broken []string
	for _, e := range flatten(decodeErr) {
		if fe, ok := errors.AsType[*FieldError](e); ok {
			broken = append(broken, fe.Path)
		}
	}
	out := []error{decodeErr}
	for _, e := range flatten(c.Validate()) {
		if fe, ok := errors.AsType[*FieldError](e); ok && slices.ContainsFunc(broken, func(b string) bool { return fieldWithin(b, fe.Path) || fieldWithin(fe.Path, b) }) {
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// fieldWithin reports whether path is parent or a field under it.
func fieldWithin(path, parent string) bool {
	return parent == "" || path == parent || strings.HasPrefix(path, parent+".") || strings.HasPrefix(path, parent+"[")
}

// flatten returns the errors err joins, recursively, or err alone.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	m, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range m.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}
