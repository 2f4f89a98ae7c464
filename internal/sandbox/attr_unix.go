//go:build unix && !linux

package sandbox

import "syscall"

func plainAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
