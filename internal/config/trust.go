package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A config file found by discovery (switchboard.yaml in the working
// directory, config.yaml under $XDG_CONFIG_HOME/switchboard) is loaded
// only when no tool can have written it without the person knowing. A
// sandboxed command runs as the same user (or as root mapped to it), so
// ownership cannot tell its files from the person's; what can is time:
//
//   - Each time Switchboard builds its tools it records, once per
//     directory, the first time tools could write there (the directory's
//     marker under TrustDir/roots, whose ctime the kernel sets and no one
//     can set back).
//   - A discovered file whose content Switchboard already loaded (its
//     SHA-256, kept under TrustDir/configs) loads.
//   - Otherwise it loads only when it lies in no directory tools could
//     write, or was last changed (ctime) before tools could write there:
//     it was there before. Its hash is then recorded.
//   - Anything else (new or changed since tools could write beside it) is
//     refused with the reason; `switchboard config trust` records it once
//     the person has looked at it, and --config names a file outright.
//
// Also refused: a discovered file that another user owns or that others
// may write. The records are read from TrustDirs, which the file cannot
// choose, and written to the first of them and to the data directory in
// use, so a container whose home is fresh at each start still finds them
// in ./.switchboard. All of these are protected like the data directory
// (internal/protect), so no tool reaches the records.

// UntrustedError is why a discovered config file was not loaded.
type UntrustedError struct {
	Path   string
	Reason string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("not loading config file %s: %s. Check what it contains (mcpServers with a command run programs), then run `switchboard config trust` to accept it, or name it with --config", e.Path, e.Reason)
}

// trustDirs are where the trust records are read: the person's state
// directory ($XDG_STATE_HOME/switchboard, else ~/.local/state/switchboard),
// the working directory's default data directory, and $SWITCHBOARD_DATA.
// Never a place the config file itself names, which an attacker's file
// would choose.
func trustDirs(cwd string, getenv func(string) string) []string {
	var out []string
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		out = append(out, filepath.Join(d, "switchboard"))
	} else if home := getenv("HOME"); filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".local", "state", "switchboard"))
	}
	out = append(out, filepath.Join(cwd, ".switchboard"))
	if d := getenv("SWITCHBOARD_DATA"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		if d = filepath.Clean(d); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// trustWriteDirs are where c writes trust records: the first place they
// are read from and the data directory in use.
func (c *Config) trustWriteDirs() []string {
	var out []string
	for _, d := range []string{c.firstTrustDir(), c.Data} {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func (c *Config) firstTrustDir() string {
	if len(c.TrustDirs) == 0 {
		return ""
	}
	return c.TrustDirs[0]
}

// key names a path's record.
func key(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:16])
}

// configRecord is what TrustDir/configs/KEY holds.
type configRecord struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

func digest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// checkTrust decides whether the discovered file path, read as data, may
// be loaded; see the comment at the top of this file.
func checkTrust(dirs []string, path string, data []byte) error {
	lst, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("checking config file %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("checking config file %s: %w", path, err)
	}
	if owner, ok := fileOwner(st); ok && owner != os.Geteuid() && owner != 0 {
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("it belongs to another user (uid %d)", owner)}
	}
	if st.Mode().Perm()&0o022 != 0 {
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("other users may change it (mode %v); run chmod go-w on it", st.Mode().Perm())}
	}
	sum := digest(data)
	for _, dir := range dirs {
		if r, err := readRecord(dir, path); err == nil && r.SHA256 == sum {
			return nil
		}
	}
	changed := ctime(st)
	if c := ctime(lst); c.After(changed) {
		changed = c // a symlink swapped in later than its target changed
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	for _, dir := range dirs {
		if root, since, ok := writableSince(dir, path, real, changed); ok {
			return &UntrustedError{Path: path, Reason: fmt.Sprintf("it was created or changed after Switchboard let tools write in %s (since %s), so a tool may have written it", root, since.Format(time.RFC3339))}
		}
	}
	// Best effort: without the record, a later change is judged by time
	// again, which refuses it all the same when tools could write there.
	if len(dirs) > 0 {
		_ = trustIn(dirs[0], path, data)
	}
	return nil
}

// writableSince reports a directory tools could write (recorded under
// dir) that holds path or real and whose marker is not newer than
// changed, the file's last change.
func writableSince(dir, path, real string, changed time.Time) (string, time.Time, bool) {
	es, err := os.ReadDir(filepath.Join(dir, "roots"))
	if err != nil {
		return "", time.Time{}, false
	}
	for _, e := range es {
		m := filepath.Join(dir, "roots", e.Name())
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		root := strings.TrimSpace(string(b))
		if !within(root, path) && !within(root, real) {
			continue
		}
		st, err := os.Lstat(m)
		if err != nil {
			continue
		}
		if since := ctime(st); !changed.Before(since) {
			return root, since, true
		}
	}
	return "", time.Time{}, false
}

// within reports whether p is dir or lies below it.
func within(dir, p string) bool {
	return dir != "" && (p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/"))
}

func readRecord(dir, path string) (configRecord, error) {
	var r configRecord
	b, err := os.ReadFile(filepath.Join(dir, "configs", key(path)))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Path != path {
		return configRecord{}, errors.New("trust record does not match")
	}
	return r, nil
}

// Trust records data, the content of the config file path, as accepted
// by the person: a discovered file with this content loads from now on.
func (c *Config) Trust(path string, data []byte) error {
	var errs []error
	for _, d := range c.trustWriteDirs() {
		errs = append(errs, trustIn(d, path, data))
	}
	return errors.Join(errs...)
}

func trustIn(dir, path string, data []byte) error {
	d := filepath.Join(dir, "configs")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("recording trust in %s: %w", dir, err)
	}
	b, err := json.Marshal(configRecord{Path: path, SHA256: digest(data)})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d, ".tmp-*")
	if err != nil {
		return fmt.Errorf("recording trust in %s: %w", dir, err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(d, key(path)))
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the record was not made
		return fmt.Errorf("recording trust in %s: %w", dir, err)
	}
	return nil
}

// RecordWritable notes, once per directory, that tools may write in
// dirs from now on (the builtin roots, sandboxed servers' write paths):
// a discovered config changed there afterwards needs the person's trust.
// Call it before any tool runs. The first record of a directory is kept,
// so its time is when tools first could write there.
func (c *Config) RecordWritable(dirs []string) error {
	var errs []error
	for _, d := range c.trustWriteDirs() {
		errs = append(errs, recordWritableIn(d, dirs))
	}
	return errors.Join(errs...)
}

func recordWritableIn(trust string, dirs []string) error {
	d := filepath.Join(trust, "roots")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("recording tool roots in %s: %w", trust, err)
	}
	var errs []error
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := os.OpenFile(filepath.Join(d, key(abs)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("recording tool root %s: %w", abs, err))
			continue
		}
		_, err = f.WriteString(abs + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(f.Name()) // an empty marker would never be rewritten
			errs = append(errs, fmt.Errorf("recording tool root %s: %w", abs, err))
		}
	}
	return errors.Join(errs...)
}
