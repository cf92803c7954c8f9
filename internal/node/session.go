package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobfiles"
)

// maxSocketPath is the longest unix socket path Linux accepts (sun_path
// holds 108 bytes including the terminating NUL).
const maxSocketPath = 107

// Session is a job's identity and its private directory on a host, which
// holds the job server's socket (gompirun's host only), the owner record
// stale sweeps read (see SweepStale) and the profiling parts the ranks
// submit.
type Session struct {
	JobID  string
	Secret []byte
	Dir    string
	Socket string
}

// NewSession makes the session directory of a job that this host's
// gompirun serves, with a new id and secret, under tempDir.
func NewSession(tempDir string) (*Session, error) {
	tempDir, err := filepath.Abs(tempDir)
	if err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	secret := make([]byte, jobenv.MinSecretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("creating the job secret: %w", err)
	}
	for range 10 { // a clash of random ids with a live job is rare; retry
		id := make([]byte, 4)
		if _, err := rand.Read(id); err != nil {
			return nil, fmt.Errorf("creating the job id: %w", err)
		}
		s := &Session{JobID: hex.EncodeToString(id), Secret: secret}
		s.Dir = filepath.Join(tempDir, "gompi."+s.JobID)
		s.Socket = filepath.Join(s.Dir, "rt.sock")
		if len(s.Socket) > maxSocketPath {
			return nil, fmt.Errorf("session directory %s: the socket path %s is %d bytes, longer than the %d a unix socket allows; set TMPDIR to a shorter directory", s.Dir, s.Socket, len(s.Socket), maxSocketPath)
		}
		err := s.makeDir()
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("creating the session directory in %s: every job id tried was taken", tempDir)
}

// joinSession makes this host's session directory of a job that another
// gompirun serves (a daemon's): the job's id is given, and no server
// listens in it. Its name carries the host's, since hosts may share a
// temporary directory (and the simulated hosts of the tests do).
func joinSession(tempDir, jobID, host string, secret []byte) (*Session, error) {
	tempDir, err := filepath.Abs(tempDir)
	if err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, host)
	s := &Session{JobID: jobID, Secret: secret, Dir: filepath.Join(tempDir, "gompi."+jobID+"."+safe)}
	if err := s.makeDir(); err != nil {
		return nil, err
	}
	return s, nil
}

// makeDir creates the session directory with its owner record.
func (s *Session) makeDir() error {
	err := os.Mkdir(s.Dir, 0o700)
	if errors.Is(err, os.ErrExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("creating the session directory: %w", err)
	}
	// Without /proc there is no owner to record; the directory is then
	// never swept, only removed by this job.
	if o, err := selfOwner(); err == nil {
		if err := writeOwner(s.Dir, o); err != nil {
			_ = os.RemoveAll(s.Dir)
			return fmt.Errorf("creating the session directory: %w", err)
		}
	}
	return nil
}

// writeOwner records o in dir whole, written apart and renamed into
// place: another gompirun's sweep (SweepStale) that reads the record
// while it is being written would find it empty, and warn.
func writeOwner(dir string, o owner) error {
	tmp := filepath.Join(dir, ownerFile+".new")
	if err := os.WriteFile(tmp, []byte(o.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ownerFile))
}

// Remove removes the session directory and the job's shared-memory
// segments, if a rank left any.
func (s *Session) Remove() { _ = jobfiles.Remove(s.JobID, s.Dir) }
