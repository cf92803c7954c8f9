// Package rte is a rank's view of the job runtime: who it is (rank, size,
// job id, secret) and a small key-value store with a barrier, served by
// gompirun's job server over gRPC (on a unix socket, or TCP from other
// hosts), on connections authenticated with the job secret (jobauth).
//
// A process started without gompirun (GOMPI_COMM_WORLD_SIZE unset) is a
// singleton: rank 0 of 1, with the store kept in memory.
package rte

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Environment variables gompirun sets for every rank.
const (
	EnvRank      = "GOMPI_COMM_WORLD_RANK"
	EnvSize      = "GOMPI_COMM_WORLD_SIZE"
	EnvLocalRank = "GOMPI_COMM_WORLD_LOCAL_RANK"
	EnvLocalSize = "GOMPI_COMM_WORLD_LOCAL_SIZE"
	// EnvAppNum is the index of the rank's app context on an MPMD command
	// line (gompirun -np 1 a : -np 2 b gives a 0 and b 1): MPI_APPNUM.
	EnvAppNum = "GOMPI_APPNUM"
	EnvJobID  = "GOMPI_JOB_ID"
	// EnvServer is the job server's gRPC target, as in unix:///tmp/gompi.<job>/rt.sock.
	EnvServer = "GOMPI_SERVER"
	// EnvSecret is the job secret in hex.
	EnvSecret = "GOMPI_JOB_SECRET"
	// EnvSessionDir is the job's private directory on this host, where
	// node-local transports keep what they share; gompirun removes it.
	EnvSessionDir = "GOMPI_SESSION_DIR"
	// EnvLifeline is the number of an inherited descriptor, the read end of
	// a pipe whose write end only gompirun holds: end of file on it means
	// gompirun is gone.
	EnvLifeline = "GOMPI_LIFELINE_FD"
)

// ReportKeyPrefix starts the keys under which a rank announces a file it
// wrote for the user (a profiling tool's report): gompirun lists their
// values, the files' paths, when the job ends.
const ReportKeyPrefix = "gompi.report/"

// MinSecretLen is the shortest job secret accepted, in bytes.
const MinSecretLen = 32

// maxValueSize bounds a Put value, well below gRPC's default 4 MiB message limit.
const maxValueSize = 1 << 20

// RemoveJobFiles removes what a job leaves on its host: its session
// directory, the shared-memory segments named after it in /dev/shm, and
// the files elsewhere that a symbolic link in the session directory
// points to under the same name (see LinkJobFile). gompirun calls it when
// a job ends; a rank calls it when gompirun died before it could. Files
// already gone are not an error.
func RemoveJobFiles(jobID, sessionDir string) error {
	var errs []error
	if sessionDir != "" {
		errs = append(errs, removeLinked(jobID, sessionDir))
		errs = append(errs, os.RemoveAll(sessionDir))
	}
	if validJobID(jobID) { // never a pattern that reaches other jobs' files
		m, _ := filepath.Glob(filepath.Join(shmDir, "gompi."+jobID+".*"))
		for _, f := range m {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// LinkJobFile records, in the job's session directory, a file of the job
// kept elsewhere (a segment in a backing directory that is not /dev/shm),
// so that RemoveJobFiles finds it however the job ends. The file's name
// must start with "gompi.<job id>.": only such names are ever removed.
func LinkJobFile(jobID, sessionDir, path string) error {
	name := filepath.Base(path)
	if !validJobID(jobID) || !strings.HasPrefix(name, "gompi."+jobID+".") {
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

// removeLinked removes the targets of LinkJobFile's links in sessionDir.
func removeLinked(jobID, sessionDir string) error {
	if !validJobID(jobID) {
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

// WaitLifeline blocks until the lifeline pipe on descriptor fd reads end
// of file, which comes when gompirun is gone, and returns nil then. A
// descriptor that is not a pipe, or a read error, is an error: whoever
// waits must never take a doubt for gompirun's death, since what follows
// removes the job's files.
func WaitLifeline(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("lifeline descriptor %d: %w", fd, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return fmt.Errorf("lifeline descriptor %d is not a pipe", fd)
	}
	f := os.NewFile(uintptr(fd), "gompirun lifeline")
	var b [1]byte
	for {
		_, err := f.Read(b[:])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("lifeline descriptor %d: %w", fd, err)
		}
	}
}

// shmDir is where shared-memory segments live by default.
const shmDir = "/dev/shm"

// AbortStatus is the process exit status for an Abort with code: the code
// itself when it fits in 0..255, else its low 8 bits as exit(3) would keep
// them (so -1 gives 255), except that a code whose low bits are 0 gives 1,
// so an abort with a non-zero code never looks like success.
func AbortStatus(code int) int {
	if code >= 0 && code <= 255 {
		return code
	}
	if s := code & 0xff; s != 0 {
		return s
	}
	return 1
}
