package pmi

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// ErrNotLaunched is returned by Open when no PMI launcher started the
// process: neither PMI_FD nor PMI_PORT is set.
var ErrNotLaunched = errors.New("pmi: not started by a PMI launcher (neither PMI_FD nor PMI_PORT is set)")

// Version selects the wire protocol.
type Version int

const (
	// Auto picks PMI-2 when PMI_JOBID is set (Slurm's pmi2 plugin sets it)
	// and PMI-1 otherwise.
	Auto Version = 0
	V1   Version = 1
	V2   Version = 2
)

func (v Version) String() string {
	switch v {
	case Auto:
		return "auto"
	case V1:
		return "PMI-1"
	case V2:
		return "PMI-2"
	}
	return "Version(" + strconv.Itoa(int(v)) + ")"
}

// launchEnv is what the launcher put in the environment.
type launchEnv struct {
	fd      int    // PMI_FD, or -1
	port    string // PMI_PORT host:port, or ""
	id      int    // PMI_ID, or -1
	rank    int    // PMI_RANK, or -1
	size    int    // PMI_SIZE, or -1
	jobID   string // PMI_JOBID, or ""
	version Version
}

// readEnv validates the PMI variables and resolves the protocol version.
func readEnv(getenv func(string) string, want Version) (launchEnv, error) {
	e := launchEnv{fd: -1, id: -1, rank: -1, size: -1}
	if want != Auto && want != V1 && want != V2 {
		return e, fmt.Errorf("pmi: protocol version %d: allowed are 0 (auto), 1 and 2", int(want))
	}
	var err error
	if e.fd, err = envInt(getenv, "PMI_FD", 0, "a file descriptor number, 0 or more"); err != nil {
		return e, err
	}
	if e.id, err = envInt(getenv, "PMI_ID", 0, "a process id, 0 or more"); err != nil {
		return e, err
	}
	if e.rank, err = envInt(getenv, "PMI_RANK", 0, "a rank, 0 or more"); err != nil {
		return e, err
	}
	if e.size, err = envInt(getenv, "PMI_SIZE", 1, "a job size, 1 or more"); err != nil {
		return e, err
	}
	e.jobID = getenv("PMI_JOBID")
	if p := getenv("PMI_PORT"); p != "" && e.fd < 0 {
		host, port, err := net.SplitHostPort(p)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return e, fmt.Errorf("pmi: PMI_PORT=%q: allowed is host:port with a port from 1 to 65535", p)
		}
		e.port = p
	}

	if e.fd < 0 && e.port == "" {
		for _, name := range []string{"PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_JOBID"} {
			if v := getenv(name); v != "" {
				return e, fmt.Errorf("pmi: partial launcher environment: %s=%q is set but neither PMI_FD nor PMI_PORT is", name, v)
			}
		}
		return e, ErrNotLaunched
	}
	if e.rank >= 0 && e.size >= 0 && e.rank >= e.size {
		return e, fmt.Errorf("pmi: PMI_RANK=%d with PMI_SIZE=%d: the rank must be below the size", e.rank, e.size)
	}
	if e.port != "" && e.id < 0 {
		return e, fmt.Errorf("pmi: PMI_PORT=%q is set without PMI_ID: a process connecting to the launcher needs its id", e.port)
	}

	e.version = want
	if e.version == Auto {
		e.version = V1
		if e.jobID != "" {
			e.version = V2
		}
	}
	if e.fd >= 0 {
		// With an inherited socket the launcher gives the identity in the
		// environment (PMI-1), or the client must name itself (PMI-2).
		if e.version == V1 {
			if err := requireSet(getenv, "PMI_FD", e.fd, "PMI_RANK", "PMI_SIZE"); err != nil {
				return e, err
			}
		} else if e.rank < 0 {
			return e, fmt.Errorf("pmi: PMI_FD=%d is set without PMI_RANK: PMI-2 names the rank in its first request", e.fd)
		}
	}
	return e, nil
}

func requireSet(getenv func(string) string, have string, val int, names ...string) error {
	for _, name := range names {
		if getenv(name) == "" {
			return fmt.Errorf("pmi: %s=%d is set without %s: PMI-1 with an inherited socket takes the identity from PMI_RANK and PMI_SIZE", have, val, name)
		}
	}
	return nil
}

// envInt reads an optional integer variable: -1 when unset.
func envInt(getenv func(string) string, name string, min int, allowed string) (int, error) {
	s := getenv(name)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min {
		return -1, fmt.Errorf("pmi: %s=%q: allowed is %s", name, s, allowed)
	}
	return n, nil
}
