package server

import (
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxUploadName bounds an upload's name in bytes, as file systems do.
const maxUploadName = 255

// lookalikeSeparators are characters drawn like a slash or a backslash.
// They name no directory anywhere (the file on disk gets a name of its
// own), but a name showing one reads as a path to the person and the
// model, so it is refused.
const lookalikeSeparators = "\u2215\u2044\u29f8\u29f9\uff0f\uff3c\u2216\u29f5"

// checkUploadName refuses an upload name that is not a plain file name:
// empty, too long, not UTF-8, a path (separators, "." or ".."), or with a
// control character (NUL included) or an invisible formatting character
// (bidirectional overrides, zero-width characters). The name is shown to
// people and the model only; the file written gets a name of its own.
func checkUploadName(name string) error {
	switch {
	case name == "":
		return badRequest("name is required: send the file's name as ?name=")
	case len(name) > maxUploadName:
		return badRequest("name is %d bytes; at most %d", len(name), maxUploadName)
	case !utf8.ValidString(name):
		return badRequest("name is not valid UTF-8")
	case strings.ContainsAny(name, `/\`):
		return badRequest("name %q contains a path separator; send the file's name alone, without a directory", name)
	case strings.ContainsAny(name, lookalikeSeparators):
		return badRequest("name %q contains a character drawn like a path separator; rename the file", name)
	case name == "." || name == "..":
		return badRequest("name %q is not a file name", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return badRequest("name contains the invisible or control character U+%04X; rename the file", r)
		}
	}
	return nil
}

// textTypes refine plain text by the name's extension: the bytes decide
// that a file is text, the name only which kind of text.
var textTypes = map[string]string{
	".csv": "text/csv", ".tsv": "text/tab-separated-values", ".md": "text/markdown",
	".markdown": "text/markdown", ".json": "application/json",
}

// sniffUpload returns the type of an upload, read from its bytes: UTF-8
// text (HTML and XML included, kept as text), PDF, PNG, JPEG, GIF or WebP.
// Anything else is refused, as is an empty file. The name's extension
// never makes bytes of one type into another: a PNG named .txt is a PNG.
func sniffUpload(data []byte, name string) (string, error) {
	if len(data) == 0 {
		return "", badRequest("the file is empty")
	}
	ct, _, _ := strings.Cut(http.DetectContentType(data), ";")
	switch ct {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return ct, nil
	case "text/plain", "text/html", "text/xml":
		if !utf8.Valid(data) {
			break
		}
		if t, ok := textTypes[strings.ToLower(path.Ext(name))]; ok {
			return t, nil
		}
		return "text/plain", nil
	}
	return "", errorf(http.StatusUnsupportedMediaType, "unsupported_type",
		"the file's bytes are %s, which cannot be uploaded; upload UTF-8 text (CSV, Markdown, JSON, ...), PDF, PNG, JPEG, GIF or WebP", ct)
}
