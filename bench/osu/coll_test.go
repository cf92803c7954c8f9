package osu

import (
	"slices"
	"strings"
	"testing"
)

func TestCollectiveOptions(t *testing.T) {
	for _, m := range collectives() {
		o, err := m.Options(Flags{})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if o.Counts != collCounts || o.Large != 8<<10 || o.Full {
			t.Errorf("%s: options %+v, want OSU's collective counts switching above 8 KiB", m.Name, o)
		}
		key, more := m.Headings(o)
		switch m.Name {
		case "barrier":
			if o.Sizes != nil || key != "Ranks" {
				t.Errorf("barrier: sizes %v, key %s", o.Sizes, key)
			}
		case "reduce", "allreduce": // float32 elements
			if o.Sizes[0] != 4 || o.MaxSize() != 1<<20 || key != "Size" {
				t.Errorf("%s: sizes %v, key %s", m.Name, o.Sizes, key)
			}
		default:
			if o.Sizes[0] != 1 || o.MaxSize() != 1<<20 || len(o.Sizes) != 21 || key != "Size" {
				t.Errorf("%s: sizes %v, key %s", m.Name, o.Sizes, key)
			}
		}
		if more != nil {
			t.Errorf("%s: columns %v without -f", m.Name, more)
		}
		o, _ = m.Options(Flags{Full: true})
		if _, more := m.Headings(o); !slices.Equal(more, []string{"Min Latency (us)", "Max Latency (us)"}) {
			t.Errorf("%s -f: columns %v", m.Name, more)
		}
	}
	allreduce, _ := Lookup("allreduce")
	o, err := allreduce.Options(Flags{Range: "1:16", Iters: ptr(200), Warmup: ptr(20)})
	if err != nil || !slices.Equal(o.Sizes, []int{4, 8, 16}) || o.Counts != (Counts{200, 20, 20, 1}) {
		t.Errorf("allreduce -m 1:16 -i 200 -x 20: %+v, %v", o, err)
	}
	if i, w := o.For(8 << 10); i != 200 || w != 20 {
		t.Errorf("at 8 KiB: %d, %d", i, w)
	}
	if i, w := o.For(16 << 10); i != 20 || w != 1 {
		t.Errorf("above 8 KiB: %d, %d", i, w)
	}
	// A latency measurement keeps its own threshold, 64 KiB.
	if o, _ := latency().Options(Flags{}); o.Large != LargeSize || latency().Stats || latency().NoSizes {
		t.Errorf("latency: %+v", o)
	}
}

// TestColdOptions: -c times the first -i calls at every size (the large
// sizes' counts are not scaled down), from the first call unless -x says
// otherwise; a measurement without a communicator of its own refuses it.
func TestColdOptions(t *testing.T) {
	for _, m := range collectives() {
		if !m.Cold {
			t.Errorf("%s has no cold measurement", m.Name)
		}
		o, err := m.Options(Flags{Cold: true, Iters: ptr(20)})
		if err != nil || !o.Cold {
			t.Fatalf("%s -c -i 20: %+v, %v", m.Name, o, err)
		}
		for _, size := range []int{0, 4, 8 << 10, 16 << 10, 1 << 20} {
			if i, w := o.For(size); i != 20 || w != 0 {
				t.Errorf("%s -c -i 20 at %d bytes: %d calls after %d warm-up ones, want 20 after none", m.Name, size, i, w)
			}
		}
		if !strings.Contains(m.AboutFor(o), "cold: each size on a fresh communicator") || strings.Contains(m.AboutFor(Options{}), "cold") {
			t.Errorf("%s: about %q", m.Name, m.AboutFor(o))
		}
	}
	bcast, _ := Lookup("bcast")
	o, err := bcast.Options(Flags{Cold: true, Iters: ptr(100), Warmup: ptr(3)})
	if i, w := o.For(1 << 20); err != nil || i != 100 || w != 3 {
		t.Errorf("bcast -c -i 100 -x 3 at 1 MiB: %d after %d, %v", i, w, err)
	}
	if _, err := latency().Options(Flags{Cold: true}); err == nil || !strings.Contains(err.Error(), "-c: latency has no cold measurement") {
		t.Errorf("latency -c: %v", err)
	}
}
