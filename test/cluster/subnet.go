package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// subnetLock is the claim on one 10.77.X.0/24: an flock'd file that lives
// as long as the claim. Locks are per open file, so two clusters in one
// process exclude each other as two processes do, and the kernel drops a
// claim when its process dies.
type subnetLock struct {
	x    int
	path string
	f    *os.File
}

// lockDir is where the lock files live; os.TempDir() where /run/lock is
// missing.
func lockDir() string {
	if st, err := os.Stat("/run/lock"); err == nil && st.IsDir() {
		return "/run/lock"
	}
	return os.TempDir()
}

// claimSubnet claims the lowest free X in 1..254 (10.77.0.0/24 is left to
// hand-built clusters).
func claimSubnet() (*subnetLock, error) {
	dir := lockDir()
	for x := 1; x <= 254; x++ {
		path := filepath.Join(dir, fmt.Sprintf("gompi-cluster-10.77.%d.lock", x))
		l, err := tryLock(path)
		if err != nil {
			return nil, err
		}
		if l != nil {
			l.x = x
			return l, nil
		}
	}
	return nil, fmt.Errorf("cluster: every subnet 10.77.1.0/24 to 10.77.254.0/24 is in use (lock files %s/gompi-cluster-10.77.*.lock)", dir)
}

// tryLock returns nil, nil when another cluster holds path.
func tryLock(path string) (*subnetLock, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cluster: subnet lock: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, nil
			}
			return nil, fmt.Errorf("cluster: subnet lock %s: %w", path, err)
		}
		// A releaser unlinks the file before closing it: a lock won on an
		// unlinked file is no claim, so try again on the current one.
		var held, named unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &held); err != nil {
			f.Close()
			return nil, fmt.Errorf("cluster: subnet lock %s: %w", path, err)
		}
		if err := unix.Stat(path, &named); err == nil && named.Ino == held.Ino && named.Dev == held.Dev {
			return &subnetLock{path: path, f: f}, nil
		}
		f.Close()
	}
}

// release gives the subnet back, leaving no file behind.
func (l *subnetLock) release() error {
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cluster: releasing subnet 10.77.%d.0/24: %w", l.x, err)
	}
	return nil
}
