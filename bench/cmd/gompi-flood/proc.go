package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memory is a process's resident memory, in kB, now and at its peak.
type memory struct{ rss, hwm int }

func (m memory) String() string {
	return fmt.Sprintf("rss %.1f MB, peak %.1f MB", float64(m.rss)/1024, float64(m.hwm)/1024)
}

func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	var m memory
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, _ := strings.Cut(s.Text(), ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		switch k {
		case "VmRSS":
			m.rss = n
		case "VmHWM":
			m.hwm = n
		}
	}
	return m, s.Err()
}

// loopbackPorts returns the ports pid listens on at 127.0.0.1 (or every
// IPv4 address), found through its socket descriptors and /proc/net/tcp.
func loopbackPorts(pid int) ([]int, error) {
	fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: listening
			continue
		}
		addr, port, _ := strings.Cut(f[1], ":")
		if addr != "0100007F" && addr != "00000000" {
			continue
		}
		p, err := strconv.ParseInt(port, 16, 32)
		if err == nil {
			ports = append(ports, int(p))
		}
	}
	if len(ports) == 0 {
		return nil, fmt.Errorf("process %d listens on no tcp port at 127.0.0.1", pid)
	}
	return ports, nil
}
