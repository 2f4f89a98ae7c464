package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// candidates lists the files Find tries, in order: switchboard.yaml, .yml and
// .json in cwd, then config.yaml, .yml and .json in
// $XDG_CONFIG_HOME/switchboard (XDG_CONFIG_HOME defaults to $HOME/.config; a
// relative XDG_CONFIG_HOME is ignored, as the XDG spec says).
func candidates(cwd string, getenv func(string) string) []string {
	var out []string
	for _, ext := range []string{"yaml", "yml", "json"} {
		out = append(out, filepath.Join(cwd, "switchboard."+ext))
	}
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = ""
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		for _, ext := range []string{"yaml", "yml", "json"} {
			out = append(out, filepath.Join(dir, "switchboard", "config."+ext))
		}
	}
	return out
}

// Find returns the config file to load: explicit (a --config flag, resolved
// against cwd) when it is not empty, which must then exist; otherwise the
// first existing file of switchboard.yaml, switchboard.yml, switchboard.json
// in cwd and config.yaml, config.yml, config.json in
// $XDG_CONFIG_HOME/switchboard. It returns "" and no error when there is no
// file: defaults apply.
func Find(explicit, cwd string, getenv func(string) string) (string, error) {
	stat := func(p string) ([]byte, error) {
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory", p)
		}
		return nil, err
	}
	p, _, err := locate(explicit, cwd, getenv, stat)
	return p, err
}

// locate finds the config file with read, which Load passes as its
// ReadFile, and returns its path and content.
func locate(explicit, cwd string, getenv func(string) string, read func(string) ([]byte, error)) (string, []byte, error) {
	if explicit != "" {
		if !filepath.IsAbs(explicit) {
			explicit = filepath.Join(cwd, explicit)
		}
		data, err := read(explicit)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("config file %s does not exist; check the --config path or leave it out to use switchboard.yaml in the working directory", explicit)
		}
		if err != nil {
			return "", nil, fmt.Errorf("reading config file: %w", err)
		}
		return explicit, data, nil
	}
	for _, p := range candidates(cwd, getenv) {
		data, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("reading config file: %w", err)
		}
		return p, data, nil
	}
	return "", nil, nil
}

// readRegular reads a config file from disk, refusing anything but a
// regular file: a FIFO planted where discovery looks would otherwise
// block every command, and a device would be read without end. It opens
// non-blocking and checks the opened file again.
func readRegular(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v); a config file must be one", p, st.Mode().Type())
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v); a config file must be one", p, st.Mode().Type())
	}
	return io.ReadAll(f)
}
