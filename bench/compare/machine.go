package compare

import (
	"bufio"
	"debug/buildinfo"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Machine describes where the comparison ran.
type Machine struct {
	CPUs   int
	Model  string // from /proc/cpuinfo
	Kernel string
}

// ThisMachine reads the machine's description; what cannot be read says so.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Model: "unknown CPU", Kernel: "unknown kernel"}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.Model = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func (m Machine) String() string {
	return fmt.Sprintf("%d CPUs (%s), %s", m.CPUs, m.Model, m.Kernel)
}

// GoVersion is the Go release a binary was built with.
func GoVersion(binary string) (string, error) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return "", fmt.Errorf("reading %s's build information: %w", binary, err)
	}
	return info.GoVersion, nil
}
