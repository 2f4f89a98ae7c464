package builtin

import "golang.org/x/sys/unix"

// openPathFlag opens a path without reading it (O_PATH): whatever its
// permissions, and never blocking on a FIFO.
const openPathFlag = unix.O_PATH
