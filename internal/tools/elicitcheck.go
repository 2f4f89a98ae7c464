package tools

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrElicitContent is wrapped by the error [ElicitForm.Check] returns for
// form values that do not fit the requested schema: the answer is not
// sent, and the person can correct it.
var ErrElicitContent = errors.New("the form values do not fit the requested schema")

// Check reports whether content (form values decoded from JSON, as
// encoding/json decodes into any) answers the form: every property a
// field of the form, every required field present, each value of its
// field's type and within its limits. It is the one check every surface
// runs before an accepted elicitation goes to the server; the error names
// each field that is wrong and why.
func (f *ElicitForm) Check(content map[string]any) error {
	var probs []string
	fields := make(map[string]*ElicitField, len(f.Fields))
	for i := range f.Fields {
		fields[f.Fields[i].Name] = &f.Fields[i]
	}
	for _, k := range sortedKeys(content) {
		fd, ok := fields[k]
		if !ok {
			probs = append(probs, fmt.Sprintf("%q is not a field of this form", k))
			continue
		}
		if err := fd.check(content[k]); err != nil {
			probs = append(probs, fmt.Sprintf("%s (%s): %v", fd.Label(), k, err))
		}
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		if _, ok := content[fd.Name]; fd.Required && !ok {
			probs = append(probs, fmt.Sprintf("%s (%s) is required", fd.Label(), fd.Name))
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrElicitContent, strings.Join(probs, "; "))
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// check reports why v is not a value of the field.
func (f *ElicitField) check(v any) error {
	switch f.Kind {
	case ElicitString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want text, got %s", jsonType(v))
		}
		return f.checkString(s)
	case ElicitNumber, ElicitInteger:
		n, ok := v.(float64)
		if !ok {
			return fmt.Errorf("want a number, got %s", jsonType(v))
		}
		if f.Kind == ElicitInteger && n != math.Trunc(n) {
			return fmt.Errorf("want a whole number, got %v", n)
		}
		if f.Minimum != nil && n < *f.Minimum {
			return fmt.Errorf("%v is below the minimum %v", n, *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return fmt.Errorf("%v is above the maximum %v", n, *f.Maximum)
		}
	case ElicitBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %s", jsonType(v))
		}
	case ElicitChoice:
		s, ok := v.(string)
		if !ok || !f.offers(s) {
			return fmt.Errorf("%v is not one of the choices %s", v, f.values())
		}
	case ElicitMulti:
		return f.checkMulti(v)
	}
	return nil
}

func (f *ElicitField) checkString(s string) error {
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return fmt.Errorf("at least %d characters, got %d", *f.MinLength, n)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return fmt.Errorf("at most %d characters, got %d", *f.MaxLength, n)
	}
	if f.Pattern != nil && !f.Pattern.MatchString(s) {
		return fmt.Errorf("does not match the pattern %s", f.Pattern)
	}
	switch f.Format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return errors.New("not an e-mail address")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || !u.IsAbs() {
			return errors.New("not an absolute URI (scheme:...)")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("not a date (YYYY-MM-DD)")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("not a date-time (RFC 3339, as 2025-06-18T14:30:00Z)")
		}
	}
	return nil
}

func (f *ElicitField) checkMulti(v any) error {
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("want a list of choices, got %s", jsonType(v))
	}
	seen := map[string]bool{}
	for _, it := range items {
		s, ok := it.(string)
		if !ok || !f.offers(s) {
			return fmt.Errorf("%v is not one of the choices %s", it, f.values())
		}
		if seen[s] {
			return fmt.Errorf("%q is chosen twice", s)
		}
		seen[s] = true
	}
	if f.MinItems != nil && len(items) < *f.MinItems {
		return fmt.Errorf("choose at least %d", *f.MinItems)
	}
	if f.MaxItems != nil && len(items) > *f.MaxItems {
		return fmt.Errorf("choose at most %d", *f.MaxItems)
	}
	return nil
}

func (f *ElicitField) offers(s string) bool {
	return slices.ContainsFunc(f.Options, func(o ElicitOption) bool { return o.Value == s })
}

func (f *ElicitField) values() string {
	vs := make([]string, len(f.Options))
	for i, o := range f.Options {
		vs[i] = o.Value
	}
	return "[" + strings.Join(vs, ", ") + "]"
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "text"
	case float64:
		return "a number"
	case bool:
		return "true/false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// CheckValue reports why v is not a value of the field, for a surface that
// asks one field at a time; [ElicitForm.Check] still checks the whole.
func (f *ElicitField) CheckValue(v any) error { return f.check(v) }
