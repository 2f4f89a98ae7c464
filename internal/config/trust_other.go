//go:build !linux

package config

import (
	"io/fs"
	"time"
)

// ctime falls back to the modification time, which a process can set
// back: only Linux sandboxes commands, so elsewhere tools that write
// files run unconfined anyway.
func ctime(st fs.FileInfo) time.Time { return st.ModTime() }

// fileOwner is not known here.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
