//go:build !linux

package sqlstore

import (
	"errors"
	"os"
)

// Without fallocate a mapped hole could not be reserved on disk, and a
// write to it on a full disk would kill the process: lines go through
// pwrite here.

func reserve(*os.File, int) error { return errors.ErrUnsupported }

func mapShared(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) error { return nil }
