// Package jobfiles is what a job leaves on a host (its session
// directory, the shared-memory segments named after it, the files
// elsewhere linked from the session directory, the profiling parts the
// ranks write for gompirun to merge) and how it is removed. It
// needs the standard library alone: the reaper, which every job starts on
// every host, links it, and a small program starts in a fraction of the
// time of one that links gRPC.
package jobfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// shmDir is where shared-memory segments live by default.
const shmDir = "/dev/shm"

// ValidID reports whether id is 1 to 64 letters, digits, '.', '_' or
// '-', starting with a letter or digit: a name that is safe in paths and
// globs. Checked by hand: the regular expression's {0,63} cost every
// process 900 allocations at start.
func ValidID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Remove removes what a job leaves on its host: its session
// directory, the shared-memory segments named after it in /dev/shm, and
// the files elsewhere that a symbolic link in the session directory
// points to under the same name (see Link). gompirun calls it when
// a job ends; a rank calls it when gompirun died before it could. Files
// already gone are not an error.
func Remove(jobID, sessionDir string) error {
	var errs []error
	if sessionDir != "" {
		errs = append(errs, removeLinked(jobID, sessionDir))
		errs = append(errs, os.RemoveAll(sessionDir))
	}
	if ValidID(jobID) { // never a pattern that reaches other jobs' files
		m, _ := filepath.Glob(filepath.Join(shmDir, "gompi."+jobID+".*"))
		for _, f := range m {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Link records, in the job's session directory, a file of the job
// kept elsewhere (a segment in a backing directory that is not /dev/shm),
// so that Remove finds it however the job ends. The file's name
// must start with "gompi.<job id>.": only such names are ever removed.
func Link(jobID, sessionDir, path string) error {
	name := filepath.Base(path)
	if !ValidID(jobID) || !strings.HasPrefix(name, "gompi."+jobID+".") {
		return fmt.Errorf("job file %s: its name must start with gompi.%s. as the job's files do", path, jobID)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	link := filepath.Join(sessionDir, name)
	if abs == link {
		return nil // in the session directory already
	}
	return os.Symlink(abs, link)
}

// removeLinked removes the targets of Link's links in sessionDir.
func removeLinked(jobID, sessionDir string) error {
	if !ValidID(jobID) {
		return nil
	}
	entries, err := os.ReadDir(sessionDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 || !strings.HasPrefix(e.Name(), "gompi."+jobID+".") {
			continue
		}
		target, err := os.Readlink(filepath.Join(sessionDir, e.Name()))
		// A link whose target has another name is not one of ours.
		if err != nil || filepath.Base(target) != e.Name() {
			continue
		}
		if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
