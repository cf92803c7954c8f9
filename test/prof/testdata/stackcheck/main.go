// Command stackcheck is a job for test/prof: it links two recording prof
// tools, rec1 and rec2, makes a known sequence of MPI calls, and prints
// on rank 0 what the tools saw, one line per event, after Finalize.
package main

import (
	"fmt"
	"os"
	"strings"
	"sync"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// journal is what the tools saw, in order.
type journal struct {
	mu     sync.Mutex
	events []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	j.events = append(j.events, fmt.Sprintf(format, args...))
	j.mu.Unlock()
}

var seen journal

// recorder is a prof component that notes before and after the calls it
// overrides, and the Pcontrol levels it is given.
type recorder struct {
	prof.BaseComponent
}

func (r *recorder) Wrap(next pmpi.API) (pmpi.API, error) {
	return &layer{Base: prof.Base{Next: next}, name: r.ComponentName}, nil
}

type layer struct {
	prof.Base
	name string
}

func (l *layer) around(fn string, call func() error) error {
	seen.add("%s before %s", l.name, fn)
	err := call()
	seen.add("%s after %s", l.name, fn)
	return err
}

func (l *layer) Init() error { return l.around("Init", l.Next.Init) }

func (l *layer) Finalize() error { return l.around("Finalize", l.Next.Finalize) }

func (l *layer) Pcontrol(level int) error {
	return l.around(fmt.Sprintf("Pcontrol(%d)", level), func() error { return l.Next.Pcontrol(level) })
}

func (l *layer) Send(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error {
	return l.around("Send", func() error { return l.Next.Send(buf, count, dt, dest, tag, comm) })
}

func (l *layer) Recv(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (pmpi.Status, error) {
	var st pmpi.Status
	err := l.around("Recv", func() (err error) {
		st, err = l.Next.Recv(buf, count, dt, source, tag, comm)
		return err
	})
	return st, err
}

func (l *layer) Allreduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	return l.around("Allreduce", func() error { return l.Next.Allreduce(send, recv, count, dt, op, comm) })
}

func init() {
	for name, prio := range map[string]int{"rec1": 10, "rec2": 20} {
		mca.Register(prof.Info(name, mca.Version{Major: 1}, prio, func() mca.Component { return &recorder{} }))
	}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stackcheck:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Pcontrol(7); err != nil { // before Init: no tool yet, and no error
		return fmt.Errorf("Pcontrol before Init: %w", err)
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.CommWorld()
	me := w.Rank()
	if err := mpi.Pcontrol(0); err != nil {
		return err
	}
	switch me {
	case 0:
		if err := mpi.Send([]int32{1, 2}, 1, 5, w); err != nil {
			return err
		}
	case 1:
		buf := make([]int32, 2)
		if _, err := mpi.Recv(buf, 0, 5, w); err != nil {
			return err
		}
	}
	sum := make([]int64, 1)
	if err := mpi.Allreduce([]int64{int64(me)}, sum, mpi.Sum, w); err != nil {
		return err
	}
	if err := mpi.Finalize(); err != nil {
		return err
	}
	if err := mpi.Pcontrol(2); err != nil { // after Finalize: still delivered
		return fmt.Errorf("Pcontrol after Finalize: %w", err)
	}
	if me == 0 {
		fmt.Println(strings.Join(seen.events, "\n"))
	}
	return nil
}
