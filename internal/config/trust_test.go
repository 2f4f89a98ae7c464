//go:build linux

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nextTick waits until the kernel's clock for ctime has moved past
// path's ctime, so that what is written next is ordered after it (the
// clock is coarse: files written in a row may share a ctime).
func nextTick(t *testing.T, path string) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "probe")
	for range 1_000_000 {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := os.Lstat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if ctime(p).After(ctime(st)) {
			return
		}
	}
	t.Fatal("the ctime clock did not move")
}

func TestDiscoveredConfigTrust(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	env := envMap{"XDG_STATE_HOME": state}
	file := filepath.Join(cwd, "switchboard.yaml")
	load := func(o LoadOptions) error {
		o.Cwd, o.Getenv = cwd, env.get
		_, err := Load(o)
		return err
	}
	untrusted := func(t *testing.T, err error, why string) {
		t.Helper()
		var ue *UntrustedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "switchboard config trust") {
			t.Fatalf("Load = %v, want a refusal saying %q and what to do", err, why)
		}
	}
	write := func(text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
	}

	// The person's file, there before Switchboard ever gave tools the
	// directory: it loads.
	write("log: {level: info}\n", 0o600)
	nextTick(t, file)
	if err := load(LoadOptions{}); err != nil {
		t.Fatalf("a config written before any tool ran: %v", err)
	}
	dir := filepath.Join(state, "switchboard")
	rec := &Config{TrustDirs: []string{dir}}
	if err := rec.RecordWritable([]string{cwd}); err != nil {
		t.Fatal(err)
	}
	if err := load(LoadOptions{}); err != nil {
		t.Fatalf("the same config after tools got the directory: %v", err)
	}

	// A tool (or anyone) writes it now: refused, until trusted.
	nextTick(t, filepath.Join(dir, "roots", key(cwd)))
	write("mcpServers: {evil: {command: /bin/sh}}\n", 0o600)
	untrusted(t, load(LoadOptions{}), "after Switchboard let tools write in "+cwd)
	if err := load(LoadOptions{Path: file}); err != nil {
		t.Errorf("--config names the file outright: %v", err)
	}
	if err := load(LoadOptions{SkipTrust: true}); err != nil {
		t.Errorf("SkipTrust: %v", err)
	}
	data, _ := os.ReadFile(file)
	if err := rec.Trust(file, data); err != nil {
		t.Fatal(err)
	}
	if err := load(LoadOptions{}); err != nil {
		t.Errorf("after config trust: %v", err)
	}
	// Trust is of the content: another change is refused again.
	write("mcpServers: {evil: {command: /bin/bash}}\n", 0o600)
	untrusted(t, load(LoadOptions{}), "a tool may have written it")

	// Others may write it: never loaded by discovery.
	if err := rec.Trust(file, []byte("log: {level: info}\n")); err != nil {
		t.Fatal(err)
	}
	write("log: {level: info}\n", 0o666)
	untrusted(t, load(LoadOptions{}), "other users may change it")
}

// A directory tools got later than the file changed, or one that holds
// the file only through a symlink, decides the same way.
func TestTrustFollowsSymlinkedConfig(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "switchboard")
	if err := (&Config{TrustDirs: []string{dir}}).RecordWritable([]string{root}); err != nil {
		t.Fatal(err)
	}
	nextTick(t, filepath.Join(dir, "roots", key(root)))
	target := filepath.Join(root, "planted.yaml")
	if err := os.WriteFile(target, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(cwd, "switchboard.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err = Load(LoadOptions{Cwd: cwd, Getenv: envMap{"XDG_STATE_HOME": filepath.Dir(dir)}.get})
	if err == nil {
		t.Fatal("a config linked to a file a tool wrote was loaded")
	}
}

// A FIFO planted where discovery looks is refused at once, not read
// (which would block every command).
func TestDiscoveredFIFORefused(t *testing.T) {
	cwd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(cwd, "switchboard.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Cwd: cwd, Getenv: envMap{}.get})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load with a FIFO as switchboard.yaml = %v; want a refusal", err)
	}
}

// A container's home is fresh at each start: the records kept in the data
// directory of the working directory still refuse a config planted in an
// earlier life, and still accept the one the person trusted.
func TestTrustRecordsSurviveAFreshHome(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cwd, "switchboard.yaml")
	first := envMap{"HOME": t.TempDir()}
	c, err := Load(LoadOptions{Cwd: cwd, Getenv: first.get})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RecordWritable([]string{cwd}); err != nil {
		t.Fatal(err)
	}
	nextTick(t, filepath.Join(cwd, ".switchboard", "roots", key(cwd)))
	if err := os.WriteFile(file, []byte("mcpServers: {evil: {command: /bin/sh}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := envMap{"HOME": t.TempDir()}
	_, err = Load(LoadOptions{Cwd: cwd, Getenv: fresh.get})
	var ue *UntrustedError
	if !errors.As(err, &ue) {
		t.Fatalf("a config planted before the restart, with a fresh home = %v; want refused", err)
	}
	c.Data = filepath.Join(cwd, ".switchboard")
	if err := c.Trust(file, []byte("mcpServers: {evil: {command: /bin/sh}}\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(LoadOptions{Cwd: cwd, Getenv: (envMap{"HOME": t.TempDir()}).get}); err != nil {
		t.Errorf("the trusted config with another fresh home: %v", err)
	}
}
