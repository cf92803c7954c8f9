// Package jobenv names the environment variables through which a
// launcher (gompirun, or its daemon on another host) gives each rank its
// identity, and package rte reads them. It is constants alone, so that
// the small programs that start ranks (the daemon) link no more than
// they need.
package jobenv

// The variables set for every rank.
const (
	Rank      = "GOMPI_COMM_WORLD_RANK"
	Size      = "GOMPI_COMM_WORLD_SIZE"
	LocalRank = "GOMPI_COMM_WORLD_LOCAL_RANK"
	LocalSize = "GOMPI_COMM_WORLD_LOCAL_SIZE"
	// AppNum is the index of the rank's app context on an MPMD command
	// line (gompirun -np 1 a : -np 2 b gives a 0 and b 1): MPI_APPNUM.
	AppNum = "GOMPI_APPNUM"
	JobID  = "GOMPI_JOB_ID"
	// Server is the job server's gRPC target, as in unix:///tmp/gompi.<job>/rt.sock.
	Server = "GOMPI_SERVER"
	// Secret is the job secret in hex.
	Secret = "GOMPI_JOB_SECRET"
	// SessionDir is the job's private directory on this host, where
	// node-local transports keep what they share; gompirun removes it.
	SessionDir = "GOMPI_SESSION_DIR"
	// Lifeline is the number of an inherited descriptor, the read end of
	// a pipe whose write end only gompirun holds: end of file on it means
	// gompirun is gone.
	Lifeline = "GOMPI_LIFELINE_FD"
)

// MinSecretLen is the shortest job secret accepted, in bytes.
const MinSecretLen = 32
