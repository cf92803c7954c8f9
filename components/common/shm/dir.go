package shm

import (
	"errors"
	"os"
	"syscall"
)

// DirRefused tells the errors of making a segment's file in a directory
// that another directory, such as the job's session directory, may not
// have: the directory is missing, refuses this user, is read-only or
// full, or its file system cannot hold such a file.
func DirRefused(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EOPNOTSUPP)
}
