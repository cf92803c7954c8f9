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
)

// ReportKeyPrefix starts the keys under which a rank announces a file it
// wrote for the user (a profiling tool's report): gompirun lists their
// values, the files' paths, when the job ends.
const ReportKeyPrefix = "gompi.report/"

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
