//go:build !linux

package builtin

import "os"

// openPathFlag: other systems have no O_PATH; only directories and
// regular files are opened this way (writeAtomic refuses anything else
// first).
const openPathFlag = os.O_RDONLY
