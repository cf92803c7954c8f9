package node

import (
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// kids are the child daemons a leader starts and relays, in a tree launch
// (see the launcher's tree.go).
type kids struct {
	out  *FrameWriter // the leader's wire to gompirun
	list []*kid
	wg   sync.WaitGroup // one per child, done when its agent has ended and its output is relayed
}

// kid is one child daemon's agent, as its leader runs it.
type kid struct {
	cmd *exec.Cmd
	// input carries the child's input in order. Only the leader's router
	// goroutine sends on it and closes it (and startKids, before).
	input  chan []byte
	closed bool
	kill   chan struct{} // closed to kill the agent, and once it has ended
	kOnce  sync.Once
}

// startKids starts the agent of every child; a child whose agent cannot
// start is reported ended at once.
func startKids(children []ChildAgent, out *FrameWriter) *kids {
	ks := &kids{out: out}
	for i, c := range children {
		k := &kid{input: make(chan []byte, 64), kill: make(chan struct{})}
		ks.list = append(ks.list, k)
		ks.wg.Add(1)
		if err := ks.start(int32(i), k, c); err != nil {
			ks.ended(int32(i), fmt.Sprintf("starting the launch agent %s for host %s: %v", c.Argv[0], c.Host, err))
			k.closeInput()
			ks.wg.Done()
		}
	}
	return ks
}

func (ks *kids) start(i int32, k *kid, c ChildAgent) error {
	k.cmd = exec.Command(c.Argv[0], c.Argv[1:]...)
	in, err := k.cmd.StdinPipe()
	if err != nil {
		return err
	}
	outR, err := k.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errR, err := k.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := k.cmd.Start(); err != nil {
		return err
	}
	go func() { // the child's input, in order, until its end
		for b := range k.input {
			if _, err := in.Write(b); err != nil {
				break // the agent is gone: its end is reported below
			}
		}
		in.Close()
		for range k.input { // drained: route never blocks on a dead child
		}
	}()
	go func() {
		<-k.kill
		_ = k.cmd.Process.Kill() // a no-op once Wait has returned
	}()
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); ks.pump(i, RelayOut, outR) }()
	go func() { defer pumps.Done(); ks.pump(i, RelayErr, errR) }()
	go func() {
		defer ks.wg.Done()
		pumps.Wait() // Wait closes the pipes
		why := ""
		if err := k.cmd.Wait(); err != nil {
			why = err.Error()
		}
		k.closeKill()
		ks.ended(i, why)
	}()
	return nil
}

func (k *kid) closeKill() { k.kOnce.Do(func() { close(k.kill) }) }

func (k *kid) closeInput() {
	if !k.closed {
		k.closed = true
		close(k.input)
	}
}

// pump relays what the child's agent writes on one stream.
func (ks *kids) pump(i int32, stream uint32, r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_ = ks.out.Write(Frame{Kind: FrameRelay, Rank: i, Arg: stream, Payload: append([]byte(nil), buf[:n]...)})
		}
		if err != nil {
			return
		}
	}
}

func (ks *kids) ended(i int32, why string) {
	_ = ks.out.Write(Frame{Kind: FrameRelay, Rank: i, Arg: RelayEnded, Payload: []byte(why)})
}

// route applies a relay frame from gompirun.
func (ks *kids) route(f Frame) {
	if f.Rank < 0 || int(f.Rank) >= len(ks.list) {
		return
	}
	k := ks.list[f.Rank]
	switch f.Arg {
	case RelayIn:
		k.send(f.Payload)
	case RelayClose:
		k.closeInput()
	case RelayKill:
		k.closeKill()
	}
}

// send queues b for the child's input, unless that has ended.
func (k *kid) send(b []byte) {
	if !k.closed {
		k.input <- b
	}
}

// closeInputs ends every child's input: their daemons stop their ranks.
func (ks *kids) closeInputs() {
	for _, k := range ks.list {
		k.closeInput()
	}
}

// wait returns once every child's agent has ended; after gone is closed
// (gompirun is gone, or released the leader) it waits grace more, then
// kills the agents left.
func (ks *kids) wait(gone <-chan struct{}, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		ks.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-gone:
	}
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	for _, k := range ks.list {
		k.closeKill()
	}
	<-done
}
