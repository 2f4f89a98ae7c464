//go:build !unix

package sqlstore

import (
	"errors"
	"os"
)

// tryLock is not available here: without a lock that ends with its
// process, a live journal could not be told from a dead one, so records
// begin in the table instead (see journal).
func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }
