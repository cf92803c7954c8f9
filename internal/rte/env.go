package rte

import (
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobfiles"
)

// config is what the environment says about this process.
type config struct {
	job      ess.Job
	server   string // gRPC target of the job server; empty: keep the store locally
	lifeline int    // descriptor whose end of file means gompirun is gone; 0: none
}

// parseEnv reads the variables gompirun sets. An empty variable counts as
// unset. Without GOMPI_COMM_WORLD_SIZE the process is a singleton and every
// other variable must be unset too, since a half-set identity means a broken
// launcher rather than a deliberate singleton.
func parseEnv(getenv func(string) string) (config, error) {
	sizeStr := getenv(jobenv.Size)
	if sizeStr == "" {
		for _, name := range []string{jobenv.Rank, jobenv.LocalRank, jobenv.LocalSize, jobenv.AppNum, jobenv.Server, jobenv.SessionDir, jobenv.Lifeline} {
			if v := getenv(name); v != "" {
				return config{}, fmt.Errorf("environment variable %s=%q is set but %s is not; set both, or neither to run as a singleton", name, v, jobenv.Size)
			}
		}
		return config{job: ess.Job{Size: 1, LocalSize: 1, Singleton: true}}, nil
	}

	var c config
	size, err := positiveInt(jobenv.Size, sizeStr)
	if err != nil {
		return config{}, err
	}
	c.job.Size = size

	rankStr := getenv(jobenv.Rank)
	if rankStr == "" {
		return config{}, fmt.Errorf("environment variable %s is not set although %s=%q is", jobenv.Rank, jobenv.Size, sizeStr)
	}
	if c.job.Rank, err = rankIn(jobenv.Rank, rankStr, jobenv.Size, size); err != nil {
		return config{}, err
	}

	// Without local values every rank is on this host.
	c.job.LocalSize, c.job.LocalRank = size, c.job.Rank
	if s := getenv(jobenv.LocalSize); s != "" {
		if c.job.LocalSize, err = positiveInt(jobenv.LocalSize, s); err != nil {
			return config{}, err
		}
		if c.job.LocalSize > size {
			return config{}, fmt.Errorf("environment variable %s=%q: must not exceed %s=%d", jobenv.LocalSize, s, jobenv.Size, size)
		}
	}
	if s := getenv(jobenv.LocalRank); s != "" {
		if c.job.LocalRank, err = rankIn(jobenv.LocalRank, s, jobenv.LocalSize, c.job.LocalSize); err != nil {
			return config{}, err
		}
	} else if c.job.LocalRank >= c.job.LocalSize {
		return config{}, fmt.Errorf("environment variable %s is not set and %s=%d cannot stand in for it with %s=%d", jobenv.LocalRank, jobenv.Rank, c.job.Rank, jobenv.LocalSize, c.job.LocalSize)
	}

	// Unset: the launcher knows no app contexts, so there is one, app 0.
	if s := getenv(jobenv.AppNum); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return config{}, fmt.Errorf("environment variable %s=%q: want a non-negative integer", jobenv.AppNum, s)
		}
		c.job.AppNum = n
	}

	c.job.JobID = getenv(jobenv.JobID)
	if c.job.JobID == "" {
		return config{}, fmt.Errorf("environment variable %s is not set although %s=%q is", jobenv.JobID, jobenv.Size, sizeStr)
	}
	if !jobfiles.ValidID(c.job.JobID) {
		return config{}, fmt.Errorf("environment variable %s=%q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", jobenv.JobID, c.job.JobID)
	}

	c.server = getenv(jobenv.Server)
	if c.server != "" {
		if err := checkServer(c.server); err != nil {
			return config{}, err
		}
	} else if size > 1 {
		return config{}, fmt.Errorf("environment variable %s is not set although %s=%d: a job of several ranks needs the job server", jobenv.Server, jobenv.Size, size)
	}

	if s := getenv(jobenv.Lifeline); s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil || fd < 3 {
			return config{}, fmt.Errorf("environment variable %s=%q: want a descriptor number of 3 or more", jobenv.Lifeline, s)
		}
		c.lifeline = fd
	}

	if d := getenv(jobenv.SessionDir); d != "" {
		if !filepath.IsAbs(d) {
			return config{}, fmt.Errorf("environment variable %s=%q: want an absolute path", jobenv.SessionDir, d)
		}
		c.job.SessionDir = d
	}

	if s := getenv(jobenv.Secret); s != "" {
		if c.job.Secret, err = parseSecret(s); err != nil {
			return config{}, err
		}
	} else if c.server != "" {
		return config{}, fmt.Errorf("environment variable %s is not set although %s=%q is: the job server refuses calls without it", jobenv.Secret, jobenv.Server, c.server)
	}
	return c, nil
}

func positiveInt(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("environment variable %s=%q: want a positive integer", name, s)
	}
	return n, nil
}

func rankIn(name, s, sizeName string, size int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("environment variable %s=%q: want a non-negative integer", name, s)
	}
	if n >= size {
		return 0, fmt.Errorf("environment variable %s=%q: must be less than %s=%d", name, s, sizeName, size)
	}
	return n, nil
}

// checkServer accepts the gRPC targets gompirun may hand out: a unix socket
// (unix:///abs/path or unix:path) or host:port.
func checkServer(s string) error {
	if path, ok := strings.CutPrefix(s, "unix:"); ok {
		if strings.TrimPrefix(path, "//") == "" {
			return fmt.Errorf("environment variable %s=%q: the unix socket path is empty", jobenv.Server, s)
		}
		return nil
	}
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		return fmt.Errorf("environment variable %s=%q: want unix:///path/to/socket or host:port", jobenv.Server, s)
	}
	return nil
}

// parseSecret decodes the hex secret. Errors describe the value without
// repeating it: it is a credential.
func parseSecret(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("environment variable %s (%d characters, value not shown): not valid hex: %v", jobenv.Secret, len(s), err)
	}
	if len(b) < jobenv.MinSecretLen {
		return nil, fmt.Errorf("environment variable %s (%d characters, value not shown): the secret is %d bytes; at least %d are required", jobenv.Secret, len(s), len(b), jobenv.MinSecretLen)
	}
	return b, nil
}
