package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// flood is the connections one holder keeps open.
type flood struct {
	addrs   []string
	junk    bool
	churn   bool
	stop    chan struct{}
	open    atomic.Int64 // connected and not yet dropped by the rank
	dialed  atomic.Int64
	failed  atomic.Int64 // dials that failed
	dropped atomic.Int64 // connections the rank closed

	mu    sync.Mutex
	conns []net.Conn
}

func hold(args []string) error {
	fs := flag.NewFlagSet("hold", flag.ContinueOnError)
	pid := fs.Int("pid", 0, "the process to flood")
	n := fs.Int("n", 5000, "connections to open")
	junk := fs.Bool("junk", false, "send a few bytes that are not the protocol on each connection")
	churn := fs.Bool("churn", false, "dial again for every connection the rank drops")
	holdFor := fs.Duration("hold", 10*time.Second, "how long to hold the connections open")
	goFile := fs.String("go", "", "file to create once the hold is over")
	dialers := fs.Int("dialers", 32, "connections dialed at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pid == 0 {
		return errors.New("hold: -pid is required")
	}
	if err := raiseFileLimit(*n + 100); err != nil {
		return err
	}
	ports, err := loopbackPorts(*pid)
	if err != nil {
		return err
	}
	f := &flood{junk: *junk, churn: *churn, stop: make(chan struct{})}
	for _, p := range ports {
		f.addrs = append(f.addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	}
	before, err := readMemory(*pid)
	if err != nil {
		return err
	}
	fmt.Printf("before: %v; flooding %v with %d connections (junk %v, churn %v)\n", before, f.addrs, *n, *junk, *churn)

	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for range *dialers {
		wg.Go(func() {
			for i := range work {
				f.dial(i)
			}
		})
	}
	go func() {
		defer close(work)
		for i := range *n {
			select {
			case work <- i:
			case <-f.stop:
				return
			}
		}
	}()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	end := time.After(*holdFor)
	peak := before
sample:
	for {
		select {
		case <-tick.C:
		case <-end:
			break sample
		}
		m, err := readMemory(*pid)
		if err != nil {
			return fmt.Errorf("the rank is gone: %w", err)
		}
		peak.rss = max(peak.rss, m.rss)
		peak.hwm = max(peak.hwm, m.hwm)
		fmt.Printf("%5.1fs: dialed %d, open %d, dropped by the rank %d, dial failures %d; %v\n",
			time.Since(start).Seconds(), f.dialed.Load(), f.open.Load(), f.dropped.Load(), f.failed.Load(), m)
	}
	if *goFile != "" {
		if err := os.WriteFile(*goFile, nil, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("during: highest rss %.1f MB, peak %.1f MB (before: %v)\n", float64(peak.rss)/1024, float64(peak.hwm)/1024, before)
	// Hold on while rank 0 dials rank 1 through the flood.
	time.Sleep(2 * time.Second)
	close(f.stop)
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	wg.Wait()
	return nil
}

// dial opens connection i and watches it until the rank drops it; with
// churn it then dials again.
func (f *flood) dial(i int) {
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		c, err := net.DialTimeout("tcp", f.addrs[i%len(f.addrs)], 5*time.Second)
		f.dialed.Add(1)
		if err != nil {
			f.failed.Add(1)
			continue
		}
		if f.junk {
			c.Write([]byte("GET / HTTP/1.1\r\nHost: flood\r\n\r\n"))
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.open.Add(1)
		go f.watch(c, i)
		return
	}
}

// watch waits for the rank to close c, and with churn dials again.
func (f *flood) watch(c net.Conn, i int) {
	io.Copy(io.Discard, c)
	f.open.Add(-1)
	select {
	case <-f.stop:
		return
	default:
	}
	f.dropped.Add(1)
	if f.churn {
		c.Close()
		f.dial(i)
	}
}

func raiseFileLimit(n int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur >= uint64(n) {
		return nil
	}
	if lim.Max < uint64(n) {
		return fmt.Errorf("%d connections need %d file descriptors, but the hard limit is %d: run several holders", n-100, n, lim.Max)
	}
	lim.Cur = uint64(n)
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
}
