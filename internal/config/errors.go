package config

import (
	"errors"
	"fmt"
)

// FieldError is one problem with one field. Load and Validate return these
// joined with errors.Join; use errors.As on each of the joined errors (via
// the Unwrap() []error method) to get at them.
type FieldError struct {
	// Path names the field as it is written in the file, such as
	// mcpServers.files.args[1] or models["gpt-4o"].provider.
	Path string
	// Line is the line in the file, or 0 when unknown (Validate does not
	// know lines: flags may have set the value).
	Line int
	Msg  string
}

func (e *FieldError) Error() string {
	s := e.Msg
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.Line > 0 {
		s += fmt.Sprintf(" (line %d)", e.Line)
	}
	return s
}

// problems collects FieldErrors.
type problems []error

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (p problems) join() error { return errors.Join(p...) }

var errTooLarge = errors.New("the file is too large or uses too many aliases; Switchboard stops reading it")
