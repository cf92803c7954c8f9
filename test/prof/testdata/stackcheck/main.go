// Command stackcheck is a job for test/prof: it links two recording prof
// tools, rec1 and rec2, makes a known sequence of MPI calls, and prints
// on rank 0 what the tools saw, one line per event, after Finalize.
//
// It also links every (testdata/every), which records each call of the
// API that reaches it, and runs, when named by its argument, one of two
// other sequences for it: "onecall" makes calls that need the
// communicator's rank or size and prints on rank 0 what every saw of
// each, one line per user call; "pcontrol" stops the collection before
// Init, resumes it later, and prints everything every saw.
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
	"github.com/gompi/gompi/test/prof/testdata/every"
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
	run := run
	if len(os.Args) > 1 {
		run = map[string]func() error{"onecall": oneCall, "pcontrol": pcontrol}[os.Args[1]]
	}
	if run == nil {
		fmt.Fprintln(os.Stderr, "stackcheck: unknown sequence", os.Args[1:])
		os.Exit(2)
	}
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

// oneCall makes, on every rank with rank 0 as the root, the calls whose
// arguments depend on the communicator's size or on whether the rank is
// the root, and prints on rank 0, for each, "Name: " and the calls every
// saw while it ran, which should be the one call the user made.
func oneCall() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.CommWorld()
	me, n := w.Rank(), w.Size()
	var lines []string
	do := func(name string, call func() error) error {
		mark := every.Len()
		if err := call(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		lines = append(lines, name+": "+strings.Join(every.Since(mark), " "))
		return nil
	}
	buf := func() []int32 { return make([]int32, 2*n) }
	// The datatype and Info calls, made on these.
	var (
		col, dup mpi.Layout[int32]
		kv       mpi.Keyval
		info     *mpi.Info
		packed   = make([]byte, 64)
	)
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Alltoall", func() error { return mpi.Alltoall(buf(), buf(), w) }},
		{"AlltoallInPlace", func() error { return mpi.AlltoallInPlace(buf(), w) }},
		{"AllgatherInPlace", func() error { return mpi.AllgatherInPlace(buf(), w) }},
		{"GatherInPlace", func() error {
			if me == 0 {
				return mpi.GatherInPlace(buf(), 0, w)
			}
			return mpi.GatherInPlace(make([]int32, 2), 0, w)
		}},
		{"GathervInPlace", func() error {
			counts, displs := make([]int, n), make([]int, n)
			for i := range n {
				counts[i], displs[i] = 2, 2*i
			}
			if me == 0 {
				return mpi.GathervInPlace(buf(), counts, displs, 0, w)
			}
			return mpi.GathervInPlace(make([]int32, 2), nil, nil, 0, w)
		}},
		{"ScatterInPlace", func() error {
			if me == 0 {
				return mpi.ScatterInPlace(buf(), 0, w)
			}
			return mpi.ScatterInPlace(make([]int32, 2), 0, w)
		}},
		{"ReduceInPlace", func() error { return mpi.ReduceInPlace(buf(), mpi.Sum, 0, w) }},
		{"ReduceScatterBlockInPlace", func() error { return mpi.ReduceScatterBlockInPlace(buf(), mpi.Sum, w) }},
		{"Vector", func() (err error) { col, err = mpi.Vector[int32](2, 1, 2); return err }},
		{"Darray", func() error {
			l, err := mpi.Darray[int32](n, me, []int{2 * n}, []mpi.Distribution{mpi.DistributeCyclic},
				[]int{mpi.DistributeDefaultDarg}, []int{n}, mpi.OrderC)
			if err == nil {
				err = l.Free()
			}
			return err
		}},
		{"TypeStruct", func() error {
			l, err := mpi.TypeStruct[int32](mpi.StructBlock{Count: 1, Disp: 4, Type: col.Datatype()})
			if err == nil {
				err = l.Free()
			}
			return err
		}},
		{"SendrecvLayout", func() error {
			_, err := mpi.SendrecvLayout(buf(), 1, col, me, 9, buf(), 1, col, me, 9, w)
			return err
		}},
		{"Pack", func() error { _, err := mpi.Pack(buf(), 1, col, packed, 0); return err }},
		{"Unpack", func() error { _, err := mpi.Unpack(packed, 0, buf(), 1, col); return err }},
		{"PackSize", func() error { _, err := mpi.PackSize(1, col); return err }},
		{"PackExternal", func() error { _, err := mpi.PackExternal(buf(), 1, col, packed, 0); return err }},
		{"UnpackExternal", func() error { _, err := mpi.UnpackExternal(packed, 0, buf(), 1, col); return err }},
		{"PackExternalSize", func() error { _, err := mpi.PackExternalSize(1, col); return err }},
		{"TypeCreateKeyval", func() (err error) { kv, err = mpi.TypeCreateKeyval(nil, nil, nil); return err }},
		{"TypeSetAttr", func() error { return mpi.TypeSetAttr(col.Datatype(), kv, 1) }},
		{"TypeGetAttr", func() error { _, _, err := mpi.TypeGetAttr(col.Datatype(), kv); return err }},
		{"Layout.Dup", func() (err error) { dup, err = col.Dup(); return err }},
		{"TypeDeleteAttr", func() error { return mpi.TypeDeleteAttr(col.Datatype(), kv) }},
		{"TypeFreeKeyval", func() error { return mpi.TypeFreeKeyval(&kv) }},
		{"TypeFree", func() error { return mpi.TypeFree(dup.Datatype()) }},
		{"Layout.Free", func() error { return col.Free() }},
		{"InfoCreate", func() error { info = mpi.InfoCreate(); return nil }},
		{"Info.Set", func() error { return info.Set("k", "v") }},
		{"Info.Get", func() error { _, _, err := info.Get("k"); return err }},
		{"Info.NKeys", func() error { _, err := info.NKeys(); return err }},
		{"Info.NthKey", func() error { _, err := info.NthKey(0); return err }},
		{"Info.Dup", func() error {
			d, err := info.Dup()
			if err == nil {
				err = d.Free()
			}
			return err
		}},
		{"Info.Delete", func() error { return info.Delete("k") }},
		{"Info.Free", func() error { return info.Free() }},
	} {
		if err := do(c.name, c.call); err != nil {
			return err
		}
	}
	if err := mpi.Finalize(); err != nil {
		return err
	}
	if me == 0 {
		fmt.Println(strings.Join(lines, "\n"))
	}
	return nil
}

// pcontrol stops the collection before Init, makes a first batch of
// calls, resumes it and makes a second; rank 0 prints what every saw, one
// call a line, the first batch's marked "(stopped)".
func pcontrol() error {
	if err := mpi.Pcontrol(0); err != nil {
		return fmt.Errorf("Pcontrol before Init: %w", err)
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.CommWorld()
	me := w.Rank()
	sum := make([]int64, 1)
	// The first batch: not counted.
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := mpi.Allreduce([]int64{1}, sum, mpi.Sum, w); err != nil {
		return err
	}
	if err := mpi.Pcontrol(1); err != nil {
		return err
	}
	// The second batch: counted.
	if err := mpi.Bcast(sum, 0, w); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := mpi.Finalize(); err != nil {
		return err
	}
	if me == 0 {
		fmt.Println(strings.Join(every.Since(0), "\n"))
	}
	return nil
}
