package compare

import (
	"bufio"
	"debug/buildinfo"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gompi/gompi/bench/table"
)

// Machine describes where the comparison ran.
type Machine struct {
	CPUs   int
	Model  string // from /proc/cpuinfo
	Kernel string
	// Copy is the machine's memory copy bandwidth for CopySize bytes in
	// MB/s, measured (CopyBandwidth) before the runs; 0 if not measured.
	// A shared-memory transport's large-message bandwidth is bounded by it.
	Copy float64
}

// CopySize is the message size at which Copy is measured: the largest
// of the bandwidth plans.
const CopySize = 4 << 20

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
	s := fmt.Sprintf("%d CPUs (%s), %s", m.CPUs, m.Model, m.Kernel)
	if m.Copy > 0 {
		s += fmt.Sprintf(", copies %d MiB at %.0f MB/s (Go's copy between two reused buffers)", CopySize>>20, m.Copy)
	}
	return s
}

// CopyBandwidth measures copying CopySize bytes between two buffers, as
// a single-copy transport does for one message: the median of several
// rounds of a few copies each, in MB/s (10^6 bytes per second).
func CopyBandwidth() float64 {
	const rounds, copies = 9, 16
	src, dst := make([]byte, CopySize), make([]byte, CopySize)
	for i := range src {
		src[i] = byte(i) // touched, so that no page is shared zeroes
	}
	copy(dst, src)
	rates := make([]float64, rounds)
	for r := range rates {
		start := time.Now()
		for range copies {
			copy(dst, src)
		}
		rates[r] = float64(CopySize) * copies / 1e6 / time.Since(start).Seconds()
	}
	return table.Median(rates)
}

// GoVersion is the Go release a binary was built with.
func GoVersion(binary string) (string, error) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return "", fmt.Errorf("reading %s's build information: %w", binary, err)
	}
	return info.GoVersion, nil
}
