package osu

import (
	"slices"
	"strings"
	"testing"
)

func ptr(n int) *int { return &n }

func TestOptions(t *testing.T) {
	lat, bw := latency(), bandwidth()
	tests := []struct {
		name  string
		m     Measurement
		f     Flags
		sizes []int
		c     Counts
	}{
		{"defaults", lat, Flags{}, nil, latencyCounts},
		{"range", lat, Flags{Range: "0:8"}, []int{0, 1, 2, 4, 8}, latencyCounts},
		{"max only", lat, Flags{Range: "4"}, []int{0, 1, 2, 4}, latencyCounts},
		{"min only", lat, Flags{Range: "1M:"}, []int{1 << 20, 2 << 20, 4 << 20}, latencyCounts},
		{"odd min steps by doubling", lat, Flags{Range: "3:12"}, []int{3, 6, 12}, latencyCounts},
		{"bw starts at 1", bw, Flags{Range: "0:4"}, []int{1, 2, 4}, bandwidthCounts},
		{"list", lat, Flags{List: "0, 1,64,1K,4M", Range: "ignored"}, []int{0, 1, 64, 1024, 4 << 20}, latencyCounts},
		{"iterations scale the large count", lat, Flags{Range: "0:1", Iters: ptr(1000), Warmup: ptr(50)}, []int{0, 1},
			Counts{Iters: 1000, Warmup: 50, LargeIters: 100, LargeWarmup: 5}},
		{"tiny counts keep one large iteration", bw, Flags{Range: "1:1", Iters: ptr(2), Warmup: ptr(0)}, []int{1},
			Counts{Iters: 2, Warmup: 0, LargeIters: 1, LargeWarmup: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.m.Options(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if tt.sizes != nil && !slices.Equal(o.Sizes, tt.sizes) {
				t.Errorf("sizes %v, want %v", o.Sizes, tt.sizes)
			}
			if o.Counts != tt.c {
				t.Errorf("counts %+v, want %+v", o.Counts, tt.c)
			}
		})
	}
	o, _ := lat.Options(Flags{})
	if len(o.Sizes) != 24 || o.Sizes[0] != 0 || o.MaxSize() != DefaultMaxSize {
		t.Errorf("default sizes %v", o.Sizes)
	}
	// incast and ring measure small messages unless told otherwise.
	for _, c := range []struct {
		m     Measurement
		f     Flags
		sizes []int
	}{
		{incast(), Flags{}, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
		{incast(), Flags{Range: "0:4"}, []int{1, 2, 4}},
		{incast(), Flags{Range: "4K"}, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}},
		{ring(), Flags{}, []int{0, 1, 2, 4, 8}},
		{ring(), Flags{Range: "16:"}, nil},
		{ring(), Flags{List: "8,64K"}, []int{8, 64 << 10}},
	} {
		o, err := c.m.Options(c.f)
		switch {
		case c.sizes == nil && err == nil:
			t.Errorf("%s %+v: sizes %v, want an error", c.m.Name, c.f, o.Sizes)
		case c.sizes != nil && (err != nil || !slices.Equal(o.Sizes, c.sizes)):
			t.Errorf("%s %+v: sizes %v, %v, want %v", c.m.Name, c.f, o.Sizes, err, c.sizes)
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	lat, bw := latency(), bandwidth()
	tests := []struct {
		m    Measurement
		f    Flags
		want string
	}{
		{lat, Flags{Range: "8:4"}, "max 4 is below min 8"},
		{lat, Flags{Range: "x:4"}, `"x" is not a size`},
		{lat, Flags{Range: "0:-4"}, "negative"},
		{lat, Flags{Range: "0:2G"}, "not a size"},
		{lat, Flags{Range: "0:2048M"}, "exceeds 1 GiB"},
		{bw, Flags{Range: "0:0"}, "starts at 1 bytes"},
		{bw, Flags{List: "0,1"}, "below this measurement's smallest, 1"},
		{lat, Flags{List: "1,1"}, "sizes must increase"},
		{lat, Flags{List: "1,,2"}, "is not a size"},
		{lat, Flags{Iters: ptr(0)}, "-i 0: want at least 1"},
		{lat, Flags{Warmup: ptr(-1)}, "-x -1: want 0 or more"},
	}
	for _, tt := range tests {
		_, err := tt.m.Options(tt.f)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %+v: error %v, want one containing %q", tt.m.Name, tt.f, err, tt.want)
		}
	}
}

func TestFor(t *testing.T) {
	o := Options{Counts: Counts{Iters: 10, Warmup: 2, LargeIters: 1, LargeWarmup: 0}}
	if i, w := o.For(LargeSize); i != 10 || w != 2 {
		t.Errorf("at the threshold: %d, %d", i, w)
	}
	if i, w := o.For(LargeSize + 1); i != 1 || w != 0 {
		t.Errorf("above it: %d, %d", i, w)
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if seen[m.Name] || m.Run == nil || m.Transports == nil || m.CheckRanks == nil || m.Column == "" || m.Counts.Iters == 0 {
			t.Errorf("measurement %q is incomplete or repeated", m.Name)
		}
		seen[m.Name] = true
		if got, err := Lookup(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("Lookup(%q) = %v, %v", m.Name, got.Name, err)
		}
	}
	if _, err := Lookup("gather"); err == nil ||
		!strings.Contains(err.Error(), "known: [latency sendrecv ddt ddt-rows bw bibw multi-lat incast ring barrier bcast reduce allreduce allgather alltoall neighbor-allgather neighbor-alltoall iallreduce ibcast ialltoall allreduce-init comm-dup comm-idup comm-split]") {
		t.Errorf("unknown name: %v", err)
	}
	if err := multiLatency().CheckRanks(3); err == nil {
		t.Error("multi-lat accepted 3 ranks")
	}
	for _, m := range []Measurement{latency(), incast(), ring()} {
		if err := m.CheckRanks(1); err == nil || !strings.Contains(err.Error(), "at least 2 ranks") {
			t.Errorf("%s with 1 rank: %v", m.Name, err)
		}
	}
}

func TestTransportTo(t *testing.T) {
	if got, err := transportTo("0:self 1:tcp 12:sm", 12); got != "sm" || err != nil {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := transportTo("0:self", 1); err == nil {
		t.Error("found a transport to a rank that has none")
	}
	if got := halves(6); !slices.Equal(got, [][2]int{{0, 3}, {1, 4}, {2, 5}}) {
		t.Errorf("halves(6) = %v", got)
	}
	if got := neighbours(3); !slices.Equal(got, [][2]int{{0, 1}, {1, 2}, {2, 0}}) {
		t.Errorf("neighbours(3) = %v", got)
	}
	if got := neighbours(2); !slices.Equal(got, [][2]int{{0, 1}, {1, 0}}) {
		t.Errorf("neighbours(2) = %v", got)
	}
}
