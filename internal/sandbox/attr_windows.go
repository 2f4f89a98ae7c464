package sandbox

import "syscall"

func plainAttr() *syscall.SysProcAttr { return nil }
