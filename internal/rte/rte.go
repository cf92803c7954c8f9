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

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/jobfiles"
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
	EnvJobID  = jobfiles.EnvJobID
	// EnvServer is the job server's gRPC target, as in unix:///tmp/gompi.<job>/rt.sock.
	EnvServer = "GOMPI_SERVER"
	// EnvSecret is the job secret in hex.
	EnvSecret = "GOMPI_JOB_SECRET"
	// EnvSessionDir is the job's private directory on this host, where
	// node-local transports keep what they share; gompirun removes it.
	EnvSessionDir = jobfiles.EnvSessionDir
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
