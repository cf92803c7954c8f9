package pmpi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/jobfiles"
	"github.com/gompi/gompi/internal/pml"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// ThreadLevel is an MPI thread support level.
type ThreadLevel int

// Thread support levels. gompi is goroutine-safe: it always provides
// ThreadMultiple.
const (
	ThreadSingle ThreadLevel = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

const (
	stateNew int32 = iota
	stateInitializing
	stateRunning
	stateFinalized
)

// library is the state of an initialised process.
type library struct {
	client ess.Runtime
	job    ess.Job
	sys    *mca.System
	log    hclog.Logger
	engine *pml.Engine
	routes *btl.Routes
	world  *Comm
	self   *Comm

	hostIDs   []string // by world rank: the host each rank runs on
	yields    bool     // waiting, this rank yields its CPU at once (cfg.YieldAtOnce)
	ctxs      contexts
	collCands []coll.Candidate
	collHost  coll.Host // agreed by every rank at Init
	collLog   hclog.Logger
	collReqs  sync.Pool    // *collReq
	collWaits sync.Map     // *collWait: collectives waiting on shared memory
	cache     requestCache // requests recycled at completion
	comms     sync.Map     // user context id -> *Comm, for state reports

	bsends      bsendBuffers // the buffers attached for buffered sends
	parts       partTags     // the data tags of partitioned sends
	replaceBufs sync.Pool    // *[]byte: the replace calls' copies of what they send

	// finalizePC is where a C program called MPI_Finalize, read as
	// Finalize begins, before a callback of MPI_COMM_SELF's attributes may
	// call MPI and move the calling thread's record: state reports name it.
	finalizePC atomic.Uintptr
}

var (
	state    atomic.Int32
	current  atomic.Pointer[library]
	prepared atomic.Pointer[library] // Prepare's half-made library, for Init
	initMu   sync.Mutex
	epoch    = time.Now()
)

// Init initialises MPI: it joins the job gompirun started (or runs as a
// singleton), loads the components that parameters select, and wires the
// transports to every rank. It may be called once per process.
func (*realAPI) Init() error {
	_, err := theAPI.InitThread(ThreadMultiple)
	return err
}

// InitThread is Init with a requested thread level; it returns the level
// provided: the one asked for (the next one up for a value between levels),
// as the standard asks where it can, since every level is safe here.
func (*realAPI) InitThread(required ThreadLevel) (ThreadLevel, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if s := state.Load(); s != stateNew {
		return ThreadMultiple, errorf(ClassOther, nil, "Init: MPI was already initialised%s; Init may be called once per process",
			map[bool]string{true: " and finalized"}[s == stateFinalized])
	}
	state.Store(stateInitializing)
	l := prepared.Swap(nil)
	if l == nil {
		var err error
		if l, err = prepare(context.Background()); err != nil {
			state.Store(stateNew)
			return ThreadMultiple, errorf(ClassOther, err, "Init")
		}
	}
	l, err := l.start(context.Background())
	if err != nil {
		state.Store(stateNew)
		return ThreadMultiple, errorf(ClassOther, err, "Init")
	}
	current.Store(l)
	state.Store(stateRunning)
	return min(max(required, ThreadSingle), ThreadMultiple), nil
}

// Prepare does the first half of Init: it joins the job and loads the
// parameters and the frameworks, and returns them, so that the prof stack
// can be built from them before Init runs through it. Init completes what
// Prepare began; a process that never calls Init leaves the job at exit.
func Prepare() (*mca.System, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if state.Load() != stateNew {
		return nil, errorf(ClassOther, nil, "Prepare: Init was already called")
	}
	if l := prepared.Load(); l != nil {
		return l.sys, nil
	}
	l, err := prepare(context.Background())
	if err != nil {
		return nil, errorf(ClassOther, err, "Init")
	}
	prepared.Store(l)
	return l.sys, nil
}

// prepare joins the job and loads parameters and frameworks. Asked which
// components the program registers (mca.LinkedQueryEnvVar), it answers
// and exits instead.
func prepare(ctx context.Context) (_ *library, err error) {
	if path := os.Getenv(mca.LinkedQueryEnvVar); path != "" {
		if err := mca.DefaultRegistry().Linked().WriteFile(path); err != nil {
			fmt.Fprintln(os.Stderr, "gompi:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Only rank 0 prints the parameters' warnings: the rank that the
	// launcher's variables name, since the parameters (the ess selection
	// among them) are loaded before the job is joined.
	rank := ess.LaunchRank(os.Getenv)
	l := &library{log: mca.NewLogger().With("rank", rank)}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.close())
		}
	}()
	in, err := params.DefaultInputs()
	if err != nil {
		return nil, err
	}
	l.sys, err = mca.Load(mca.Options{Logger: l.log, QuietWarnings: rank != 0 || in.Checked, Params: RegisterParams}, in)
	if err != nil {
		return nil, err
	}
	fw, err := l.sys.Framework(ess.Name)
	if err != nil {
		return nil, err
	}
	if l.client, err = ess.Join(ctx, fw); err != nil {
		return nil, err
	}
	l.job = l.client.Job()
	return l, nil
}

// start completes Init: it wires the transports to every rank and makes
// the built-in communicators.
func (l *library) start(ctx context.Context) (_ *library, err error) {
	defer func() {
		if err != nil {
			err = errors.Join(err, l.close())
		}
	}()
	procs, err := l.exchangeHosts(ctx)
	if err != nil {
		return nil, err
	}
	fw, err := l.sys.Framework(btl.Name)
	if err != nil {
		return nil, err
	}
	setGOMAXPROCS(l.sys.Snapshot(), l.job.LocalSize)
	if err := applySchedSlice(l.sys.Snapshot()); err != nil {
		// A rank runs as well without it, only later after a wait.
		l.log.Debug("the scheduler kept its default slice", "error", err)
	}
	cfg, err := engineConfig(l.sys.Snapshot(), l.job.LocalSize)
	if err != nil {
		return nil, err
	}
	l.engine = pml.New(l.job.Rank, l.log.Named("pml"), cfg)
	l.yields = cfg.YieldAtOnce
	env := btl.InitEnv{
		Rank: l.job.Rank, Size: l.job.Size, Hostname: l.job.Hostname, JobID: l.job.JobID,
		Secret: l.job.Secret, Modex: l.client, Receiver: l.engine, Oversubscribed: cfg.YieldAtOnce,
		LocalRank: l.job.LocalRank, LocalSize: l.job.LocalSize, SessionDir: l.job.SessionDir,
	}
	if dir, job := l.job.SessionDir, l.job.JobID; dir != "" {
		env.KeepJobFile = func(path string) error { return jobfiles.Link(job, dir, path) }
	}
	l.routes, err = btl.Open(ctx, fw, env, procs, l.client.Fence)
	if err != nil {
		return nil, err
	}
	l.engine.Start(l.routes)
	l.hostIDs = make([]string, len(procs))
	for i, p := range procs {
		l.hostIDs[i] = p.Hostname
	}
	if err := l.openColl(ctx); err != nil {
		return nil, err
	}
	group := make([]int, l.job.Size)
	for i := range group {
		group[i] = i
	}
	// world's contexts are 0 and 1, self's 2 and 3.
	l.ctxs.claim(0)
	l.ctxs.claim(2)
	l.world = newComm(l, CommWorldName, 0, group)
	l.self = newComm(l, CommSelfName, 2, []int{l.job.Rank})
	cands, dropped, err := coll.AgreeDeciders(l.world.cc, l.collCands)
	if err != nil {
		return nil, err
	}
	if dropped {
		l.collLog.Warn("the coll decision component does not run on every rank; every rank uses the built-in decisions")
	}
	l.collCands = cands
	if l.collHost, err = coll.AgreeHost(l.world.cc, coll.Host{Oversubscribed: cfg.YieldAtOnce}); err != nil {
		return nil, err
	}
	for _, c := range []*Comm{l.world, l.self} {
		c.builtin = true
		if err := l.attachColls(c); err != nil {
			return nil, err
		}
	}
	if s, ok := l.client.(ess.StateServer); ok {
		s.ServeState(context.Background(), l.state) // until the client closes
	}
	return l, nil
}

const hostKey = "pmpi.host"

// exchangeHosts publishes this rank's host and learns every other's.
func (l *library) exchangeHosts(ctx context.Context) ([]btl.Proc, error) {
	if err := l.client.Put(ctx, hostKey, []byte(l.job.Hostname)); err != nil {
		return nil, err
	}
	if err := l.client.Fence(ctx); err != nil {
		return nil, err
	}
	// The Gets go out together: one round trip to gompirun's server rather
	// than one per rank.
	procs := make([]btl.Proc, l.job.Size)
	errs := make([]error, l.job.Size)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			host, err := l.client.Get(ctx, i, hostKey)
			procs[i], errs[i] = btl.Proc{Rank: i, Hostname: string(host)}, err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first: when the job ends, all say so
		}
	}
	return procs, nil
}

func (l *library) close() error {
	var errs []error
	for _, c := range []*Comm{l.world, l.self} {
		if c != nil && c.colls != nil {
			errs = append(errs, c.colls.Free())
		}
	}
	if l.routes != nil {
		errs = append(errs, l.routes.Finalize())
	}
	if l.sys != nil {
		errs = append(errs, l.sys.Close()) // every framework opened, coll's among them
	}
	if l.client != nil {
		errs = append(errs, l.client.Close())
	}
	return errors.Join(errs...)
}

// Finalize waits for every rank to reach Finalize, then closes the
// transports and leaves the job. Every request must be complete.
func (*realAPI) Finalize() error {
	initMu.Lock()
	defer initMu.Unlock()
	l, err := running("Finalize")
	if err != nil {
		return err
	}
	if fc := foreignCaller.Load(); fc != nil {
		l.finalizePC.Store(fc.PC())
	}
	// MPI_COMM_SELF's attributes go first, the last set first: a library's
	// hook at Finalize may still call MPI. A failing callback fails
	// Finalize, and MPI keeps running.
	if err := l.self.freeExt(); err != nil {
		return errorf(classOf(err), err, "Finalize")
	}
	ctx := context.Background()
	l.bsends.flushAll(l.engine) // buffered messages go before this rank waits for the others
	l.engine.Unstall()          // and so do sends that found a peer's ring full
	if err := l.fenceServing(ctx); err != nil {
		return errorf(ClassOther, err, "Finalize: waiting for the other ranks")
	}
	l.engine.Finalizing() // peers disconnecting from now on is expected
	l.engine.Drain()
	err = l.client.Finalize(ctx) // before close: it tells the launcher over the client
	err = errors.Join(err, l.close())
	state.Store(stateFinalized)
	if err != nil {
		return errorf(ClassOther, err, "Finalize")
	}
	return nil
}

// fenceServing waits in the job's fence while the engine goes on
// answering peers: a peer that cancelled a send waits for this rank's
// answer, and MPI promises that its Wait returns whatever this rank
// does. The fence waits on the job server, not on the transports, which
// over sm deliver only when polled; so they are polled meanwhile, less
// often the longer nothing comes.
func (l *library) fenceServing(ctx context.Context) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		pause := time.Microsecond
		t := time.NewTimer(pause)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if l.engine.Progress() > 0 {
				pause = time.Microsecond
			} else {
				pause = min(2*pause, time.Millisecond)
			}
			t.Reset(pause)
		}
	})
	err := l.client.Fence(ctx)
	close(done)
	wg.Wait()
	return err
}

// Initialized reports whether Init has completed (even if Finalize followed).
func (*realAPI) Initialized() bool { return state.Load() >= stateRunning }

// Finalized reports whether Finalize has completed.
func (*realAPI) Finalized() bool { return state.Load() == stateFinalized }

func running(op string) (*library, error) {
	switch state.Load() {
	case stateRunning:
		return current.Load(), nil
	case stateFinalized:
		return nil, errorf(ClassOther, nil, "%s: MPI was finalized", op)
	}
	return nil, errorf(ClassOther, nil, "%s: MPI is not initialised: call Init first", op)
}

// CommWorld is the communicator of every rank of the job; nil before Init.
func (*realAPI) CommWorld() *Comm {
	if l := current.Load(); l != nil {
		return l.world
	}
	return nil
}

// CommSelf is the communicator of this rank alone; nil before Init.
func (*realAPI) CommSelf() *Comm {
	if l := current.Load(); l != nil {
		return l.self
	}
	return nil
}

// Abort stops every rank of the job with the given exit code and never
// returns: it tells the launcher, which stops the other ranks, then exits
// the process (also when the launcher cannot be told). The error result
// is MPI's signature.
func (*realAPI) Abort(comm *Comm, code int) error {
	return abort(code, fmt.Sprintf("MPI_Abort called on %v with code %d", comm, code))
}

// abort tells the launcher why the job must stop, with the peers this rank
// saw fail (a failure they caused is not the root cause), and exits.
func abort(code int, msg string) error {
	if l := current.Load(); l != nil {
		if err := l.client.Abort(context.Background(), code, msg, l.engine.FailedPeers()); err != nil {
			fmt.Fprintf(os.Stderr, "gompi: %s; telling the launcher failed: %v\n", msg, err)
		}
	}
	os.Exit(rte.AbortStatus(code))
	return nil
}

// Wtime returns elapsed wall-clock time in seconds since an arbitrary
// point in the past, fixed for the process.
func (*realAPI) Wtime() float64 { return time.Since(epoch).Seconds() }

// Wtick returns the resolution of Wtime in seconds.
func (*realAPI) Wtick() float64 { return 1e-9 }

// Transports describes which transport carries traffic to each world rank,
// as "0:self 1:tcp"; empty before Init.
func Transports() string {
	if l := current.Load(); l != nil {
		return l.routes.Describe()
	}
	return ""
}

// JobID is the id of the job this process belongs to: gompirun's, or a
// singleton's own; empty before Init. Tools name their reports with it.
func JobID() string {
	if l := current.Load(); l != nil {
		return l.job.JobID
	}
	return ""
}

// YieldsWhenWaiting reports whether a waiting rank yields its CPU at once:
// this host's ranks outnumber its CPUs, or mpi_yield_when_idle says so.
// False before Init.
func YieldsWhenWaiting() bool {
	if l := current.Load(); l != nil {
		return l.yields
	}
	return false
}

// AppNum is the index of this process's app context on gompirun's MPMD
// command line, MPI_APPNUM: under gompirun -np 1 ./a : -np 3 ./b it is 0
// in ./a's rank and 1 in each of ./b's three. It is 0 in a job of one app
// context and in a singleton, and Undefined before Init. Like JobID it is
// an attribute of the process, read around the profiling stack.
func AppNum() int {
	if l := current.Load(); l != nil {
		return l.job.AppNum
	}
	return Undefined
}

// Announce tells gompirun of a file this process wrote for the user, a
// profiling tool's report say: gompirun lists the paths when the job ends.
// It reports false when there is no gompirun to do it (a singleton, or
// before Init): the caller then tells the user itself.
func Announce(path string) (bool, error) {
	l := current.Load()
	if l == nil {
		return false, nil
	}
	a, ok := l.client.(ess.Announcer)
	if !ok {
		return false, nil
	}
	return a.Announce(context.Background(), path)
}
