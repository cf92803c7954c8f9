package shm

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// DirAccepts states what ValidDir accepts, for a parameter's Accepts.
const DirAccepts = "an absolute path, or empty"

// ValidDir is the Validate of a segment directory's parameter: an
// absolute path, since each rank may run in another directory, or empty
// for the job's session directory.
func ValidDir(v any) error {
	if d := v.(string); d != "" && !filepath.IsAbs(d) {
		return errors.New("must be an absolute path (each rank may run in another directory), or empty")
	}
	return nil
}

// DirRefused tells the errors of making a segment's file in a directory
// that another directory, such as the job's session directory, may not
// have: the directory is missing, refuses this user, is read-only or
// full, or its file system cannot hold such a file.
func DirRefused(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EOPNOTSUPP)
}
