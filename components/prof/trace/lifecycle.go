package trace

import (
	"errors"
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// Init records MPI_Init, then names the world and measures this rank's
// clock against rank 0's.
func (t *Tracer) Init() error {
	sp := t.begin()
	err := t.Next.Init()
	sp = t.stop(sp)
	t.end(sp, "MPI_Init", args{}.withErr(err))
	if err != nil {
		return err
	}
	return t.start()
}

// InitThread records MPI_InitThread and then does what Init does.
func (t *Tracer) InitThread(required pmpi.ThreadLevel) (pmpi.ThreadLevel, error) {
	sp := t.begin()
	lvl, err := t.Next.InitThread(required)
	sp = t.stop(sp)
	t.end(sp, "MPI_InitThread", args{}.withErr(err))
	if err != nil {
		return lvl, err
	}
	return lvl, t.start()
}

func (t *Tracer) start() error {
	world, self := pmpi.Real().CommWorld(), pmpi.Real().CommSelf()
	if world == nil {
		return fmt.Errorf("prof trace: no world communicator after Init")
	}
	s, err := syncClock(t.clock, world)
	if err != nil {
		return fmt.Errorf("prof trace: clock offset to rank 0: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m.name(world, "world")
	t.m.name(self, "self")
	t.m.self = world.Rank()
	t.rank, t.size, t.sync, t.started = world.Rank(), world.Size(), s, true
	return nil
}

// Finalize marks MPI_Finalize, submits this rank's events for gompirun to
// merge (without gompirun, writes the trace), and then finalizes the
// layers below.
func (t *Tracer) Finalize() error {
	t.mark("MPI_Finalize", threadMark, args{})
	err := t.flush()
	return errors.Join(err, t.Next.Finalize())
}

// Pcontrol passes level down after acting on it: 0 stops recording, 1
// resumes it, 2 marks a phase. Messages are still counted while recording
// stops, so that the arrows after it still join the right calls.
func (t *Tracer) Pcontrol(level int) error {
	sp := t.begin()
	switch level {
	case 0:
		t.recording.Store(false)
	case 1:
		t.recording.Store(true)
	case 2:
		t.mu.Lock()
		t.phases++
		n := t.phases
		t.mu.Unlock()
		t.mark(fmt.Sprintf("phase %d", n), processMark, args{}.withLabel(fmt.Sprintf("Pcontrol(2) #%d", n)))
	}
	err := t.Next.Pcontrol(level)
	sp = t.stop(sp)
	t.end(sp, "MPI_Pcontrol", args{}.withLabel(fmt.Sprintf("level %d", level)).withErr(err))
	return err
}
