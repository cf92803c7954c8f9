package osu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

const (
	// DefaultMaxSize is the largest message by default, as OSU's: 4 MiB.
	DefaultMaxSize = 4 << 20
	// LargeSize is the size above which the large-message counts apply.
	LargeSize = 64 << 10
	// maxSize bounds -m and -s: each rank allocates buffers of this size.
	maxSize = 1 << 30
)

// Flags are the OSU-style command-line flags as given; nil or empty means
// not given.
type Flags struct {
	Range  string // -m [min:]max
	List   string // -s size,size,... (overrides -m)
	Iters  *int   // -i
	Warmup *int   // -x
	Full   bool   // -f: minimum and maximum over the ranks too
	Cold   bool   // -c: each size on a fresh communicator, from its first call
}

// Options are what a run measures: the sizes and how many iterations each.
type Options struct {
	Sizes []int // increasing; none for a measurement without sizes
	Counts
	Large int  // the size above which the large-message counts apply; 0 means LargeSize
	Full  bool // report the minimum and maximum over the ranks beside the average
	// Cold: each size runs on a fresh communicator, timed from its first
	// call unless -x says otherwise, with the same counts at every size:
	// what a program that calls a collective a few dozen times sees.
	Cold bool
}

// Options checks the flags against the measurement and fills in its defaults.
func (m Measurement) Options(f Flags) (Options, error) {
	o := Options{Counts: m.Counts, Large: m.LargeSize(), Full: f.Full, Cold: f.Cold}
	if f.Cold && !m.Cold {
		return Options{}, fmt.Errorf("-c: %s has no cold measurement (the collectives have)", m.Name)
	}
	var err error
	switch {
	case m.NoSizes:
	case f.List != "":
		o.Sizes, err = parseList(f.List, m.MinSize)
	default:
		o.Sizes, err = parseRange(f.Range, m.MinSize, m.DefaultMaxSize())
	}
	if err != nil {
		return Options{}, err
	}
	// A given count scales the large-message count in OSU's proportion.
	if f.Iters != nil {
		if *f.Iters < 1 {
			return Options{}, fmt.Errorf("-i %d: want at least 1 iteration", *f.Iters)
		}
		o.Iters = *f.Iters
		o.LargeIters = max(1, *f.Iters*m.Counts.LargeIters/m.Counts.Iters)
	}
	if f.Warmup != nil {
		if *f.Warmup < 0 {
			return Options{}, fmt.Errorf("-x %d: want 0 or more warm-up iterations", *f.Warmup)
		}
		o.Warmup = *f.Warmup
		o.LargeWarmup = *f.Warmup * m.Counts.LargeWarmup / max(m.Counts.Warmup, 1)
	}
	if o.Cold {
		o.Warmup = 0
		if f.Warmup != nil {
			o.Warmup = *f.Warmup
		}
		o.LargeIters, o.LargeWarmup = o.Iters, o.Warmup
	}
	return o, nil
}

// DefaultMaxSize is the largest size measured when no flag says.
func (m Measurement) DefaultMaxSize() int {
	if m.DefaultMax > 0 {
		return m.DefaultMax
	}
	return DefaultMaxSize
}

// LargeSize is the size above which the large-message counts apply.
func (m Measurement) LargeSize() int {
	if m.Large > 0 {
		return m.Large
	}
	return LargeSize
}

// For returns the iterations and warm-up iterations for one size.
func (o Options) For(size int) (iters, warmup int) {
	large := o.Large
	if large == 0 {
		large = LargeSize
	}
	if size > large {
		return o.LargeIters, o.LargeWarmup
	}
	return o.Iters, o.Warmup
}

// MaxSize is the largest size measured.
func (o Options) MaxSize() int {
	if len(o.Sizes) == 0 {
		return 0
	}
	return o.Sizes[len(o.Sizes)-1]
}

// parseRange reads -m "[min:]max" (or "min:") into sizes from min to max
// by powers of two, as OSU steps: 0, 1, 2, 4, ... A min below minSize is
// raised to it: bandwidth starts at 1 byte.
func parseRange(s string, minSize, defaultMax int) ([]int, error) {
	lo, hi := 0, defaultMax
	if s != "" {
		a, b, hasColon := strings.Cut(s, ":")
		var err error
		if !hasColon {
			a, b = "", a
		}
		if a != "" {
			if lo, err = parseSize(a); err != nil {
				return nil, fmt.Errorf("-m %q: min: %w (want [min:]max in bytes)", s, err)
			}
		}
		if b != "" {
			if hi, err = parseSize(b); err != nil {
				return nil, fmt.Errorf("-m %q: max: %w (want [min:]max in bytes)", s, err)
			}
		}
		switch {
		case hi < lo && b == "":
			return nil, fmt.Errorf("-m %q: min %d is above this measurement's default max %d: give both, MIN:MAX", s, lo, hi)
		case hi < lo:
			return nil, fmt.Errorf("-m %q: max %d is below min %d", s, hi, lo)
		}
	}
	lo = max(lo, minSize)
	if hi < lo {
		return nil, fmt.Errorf("-m %q: this measurement starts at %d bytes", s, minSize)
	}
	var sizes []int
	for size := lo; size <= hi; size = next(size) {
		sizes = append(sizes, size)
	}
	return sizes, nil
}

func next(size int) int {
	if size == 0 {
		return 1
	}
	return size * 2
}

// parseList reads -s "0,1,64,1K,4M": increasing sizes, each at least minSize.
func parseList(s string, minSize int) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := parseSize(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-s %q: %w", s, err)
		}
		if n < minSize {
			return nil, fmt.Errorf("-s %q: size %d is below this measurement's smallest, %d", s, n, minSize)
		}
		if len(sizes) > 0 && n <= sizes[len(sizes)-1] {
			return nil, fmt.Errorf("-s %q: sizes must increase (%d after %d)", s, n, sizes[len(sizes)-1])
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// parseSize reads a byte count with an optional binary suffix K or M.
func parseSize(s string) (int, error) {
	digits, mult := s, 1
	switch {
	case strings.HasSuffix(s, "K") || strings.HasSuffix(s, "k"):
		digits, mult = s[:len(s)-1], 1<<10
	case strings.HasSuffix(s, "M") || strings.HasSuffix(s, "m"):
		digits, mult = s[:len(s)-1], 1<<20
	}
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a size in bytes", s)
	case n < 0:
		return 0, fmt.Errorf("size %d is negative", n)
	case n > maxSize/mult:
		return 0, errors.New("size exceeds 1 GiB")
	}
	return n * mult, nil
}
