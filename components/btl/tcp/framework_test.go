package tcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// openRoutes runs the btl framework for one rank as a program would.
func openRoutes(ctx context.Context, rank, size int, mx *btltest.Modex, rec btl.Receiver, fence func(context.Context) error, settings ...params.Setting) (*btl.Routes, error) {
	sys, err := mca.Load(mca.Options{Logger: hclog.NewNullLogger()}, params.Inputs{CommandLine: settings})
	if err != nil {
		return nil, err
	}
	fw, err := sys.Framework(btl.Name)
	if err != nil {
		return nil, err
	}
	procs := make([]btl.Proc, size)
	for i := range procs {
		procs[i] = btl.Proc{Rank: i, Hostname: "h"}
	}
	env := btl.InitEnv{Rank: rank, Size: size, Hostname: "h", JobID: "j", Secret: []byte("s"), Modex: mx.For(rank), Receiver: rec}
	return btl.Open(ctx, fw, env, procs, fence)
}

func TestThroughTheFramework(t *testing.T) {
	const size = 2
	ctx := context.Background()
	mx := btltest.NewModex()
	var arrived sync.WaitGroup
	arrived.Add(size)
	fence := func(context.Context) error { arrived.Done(); arrived.Wait(); return nil }
	recs := make([]*btltest.Receiver, size)
	ts := make([]*btl.Routes, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for rank := range size {
		recs[rank] = btltest.NewReceiver()
		wg.Go(func() {
			ts[rank], errs[rank] = openRoutes(ctx, rank, size, mx, recs[rank], fence,
				params.Setting{Name: "btl", Value: "tcp"},
				params.Setting{Name: "btl_tcp_if_include", Value: "127.0.0.0/8"})
		})
	}
	wg.Wait()
	for rank, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", rank, err)
		}
		t.Cleanup(func() { ts[rank].Finalize() })
	}
	if got := ts[0].Describe(); got != "0:tcp 1:tcp" {
		t.Fatalf("transports %q", got)
	}
	if err := ts[0].For(1).Send(ctx, 1, hdrFor(0, 0, 0, 10), pattern(10, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the frame", func() bool { return recs[1].Count() == 1 })
	checkFrame(t, recs[1].Frames()[0])
}

func TestFrameworkStopsOnBothInterfaceLists(t *testing.T) {
	_, err := openRoutes(context.Background(), 0, 1, btltest.NewModex(), btltest.NewReceiver(),
		func(context.Context) error { return nil },
		params.Setting{Name: "btl_tcp_if_include", Value: "lo"},
		params.Setting{Name: "btl_tcp_if_exclude", Value: "lo"})
	if !errors.Is(err, params.ErrInvalidValue) {
		t.Fatalf("loading the components: %v; want an error wrapping params.ErrInvalidValue", err)
	}
}

// A peer that no module reaches because the interface list leaves tcp
// nothing is reported with tcp's reason, not only the modules tried.
func TestUnreachableSaysWhyTCPDeclined(t *testing.T) {
	const subnet = "198.51.100.0/24" // documentation addresses: no interface has one
	_, err := openRoutes(context.Background(), 0, 2, btltest.NewModex(), btltest.NewReceiver(),
		func(context.Context) error { return nil },
		params.Setting{Name: "btl", Value: "tcp"},
		params.Setting{Name: "btl_tcp_if_include", Value: subnet})
	if !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("btl.Open: %v; want ErrUnreachable", err)
	}
	if want := "tcp declined: no interface that is up matches btl_tcp_if_include " + subnet; !strings.Contains(err.Error(), want) {
		t.Fatalf("btl.Open: %v; want it to say %q", err, want)
	}
}
