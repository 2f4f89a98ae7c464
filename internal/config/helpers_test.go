package config

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fakeFS is a ReadFile over an in-memory map of absolute paths.
type fakeFS map[string]string

func (f fakeFS) read(p string) ([]byte, error) {
	if s, ok := f[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// envMap is a Getenv over a map.
type envMap map[string]string

func (e envMap) get(k string) string { return e[k] }

// loadText loads content as the file /cfg/name with the working directory
// /work and the given environment.
func loadText(t *testing.T, name, content string, env envMap) (*Config, error) {
	t.Helper()
	return Load(LoadOptions{
		Path:     "/cfg/" + name,
		Cwd:      "/work",
		Getenv:   env.get,
		ReadFile: fakeFS{"/cfg/" + name: content}.read,
	})
}

// mustLoad is loadText that fails the test on an error.
func mustLoad(t *testing.T, name, content string, env envMap) *Config {
	t.Helper()
	c, err := loadText(t, name, content, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// problemsOf flattens the joined and wrapped errors from Load or Validate
// into one string per problem, dropping Load's "loading config" header.
func problemsOf(err error) []string {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) && fe == err { //nolint:errorlint // identity: err is itself one FieldError
		return []string{fe.Error()}
	}
	if m, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range m.Unwrap() {
			out = append(out, problemsOf(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		return problemsOf(inner)
	}
	return []string{err.Error()}
}

// cmpConfig compares configs including the unexported bookkeeping that
// decides what Validate and WriteEffective do.
var cmpConfig = cmp.Options{
	cmp.AllowUnexported(Config{}, unsetVar{}),
	cmpopts.EquateEmpty(),
}
