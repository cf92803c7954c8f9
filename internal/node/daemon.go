package node

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobfiles"
	"github.com/gompi/gompi/internal/reaper"
	"github.com/gompi/gompi/params"
)

// RunDaemon is the daemon, which gompirun starts on every other host of
// a job through the launch agent (ssh, or what plm_rsh_agent names): it
// reads the job's spec on in, starts this host's ranks with their
// identity, and reports on out their output and their exits; gompirun,
// which serves the job, decides what they mean. Signals that gompirun
// forwards come on in; end of file on in (gompirun or the agent's
// connection is gone) stops the ranks. In a tree launch it also starts
// the daemons of the spec's children and relays their wires, and returns
// only once they have ended. It removes what the job left on this host,
// and returns the daemon's exit status. errOut gets the daemon's own
// complaints, which the agent carries to gompirun. A signal on sigs stops
// the ranks as the end of in does.
func RunDaemon(in io.Reader, out, errOut io.Writer, tempDir, reaperExe string, sigs <-chan os.Signal) int {
	fail := func(err error) int {
		fmt.Fprintln(errOut, "gompirun daemon:", err)
		return 1
	}
	br := bufio.NewReader(in)
	f, err := ReadFrame(br)
	if err == nil && f.Kind != FrameSpec {
		err = fmt.Errorf("the first frame is of kind %d, not the job's spec", f.Kind)
	}
	if err != nil {
		return fail(fmt.Errorf("reading the job's spec: %w", err))
	}
	spec, err := decodeSpec(f.Payload)
	if err != nil {
		return fail(err)
	}
	d := &daemon{spec: spec, out: NewFrameWriter(out), errOut: errOut, pids: map[int]int{}, early: map[int][]syscall.Signal{},
		exits: make(chan rankExit, len(spec.Ranks)), ranksUp: make(chan struct{})}
	// The children start first, at the same time as this host's ranks get
	// ready; the daemon ends once they have, whatever ends it.
	ks := startKids(spec.Children, d.out)
	goCh, eof := make(chan struct{}), make(chan struct{})
	go d.route(br, ks, goCh, eof)
	defer ks.wait(eof, time.Duration(spec.Grace)+5*time.Second)
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	sess, err := joinSession(tempDir, spec.JobID, spec.Host, spec.Secret)
	if err != nil {
		return fail(err)
	}
	d.sess = sess
	defer sess.Remove()
	var reap *reaper.Reaper
	if reaperExe != "" {
		if reap, err = reaper.Start(reaperExe, sess.JobID, sess.Dir); err != nil {
			fmt.Fprintln(errOut, "gompirun daemon: no reaper: a killed daemon may leave the job's files and processes:", err)
		}
	}
	defer reap.Release()
	server, err := spec.server()
	if err != nil {
		return fail(err)
	}
	progs, ok := d.prepare()
	if !ok {
		return 1
	}
	d.server = server
	ready, err := json.Marshal(d.cpus)
	if err != nil {
		return fail(err)
	}
	d.report(Frame{Kind: FrameReady, Payload: ready})
	select {
	case <-goCh:
	case <-eof:
		return 0 // gompirun called the launch off: nothing was started
	}
	d.run(progs, eof, sigs)
	return 0
}

// route applies gompirun's frames until its end of file (or anything that
// is not a frame), which closes eof and ends the children's input: go
// closes goCh, signals go to the ranks, relay frames to the children.
func (d *daemon) route(in *bufio.Reader, ks *kids, goCh, eof chan<- struct{}) {
	defer close(eof)
	defer ks.closeInputs()
	started := false
	for {
		f, err := ReadFrame(in)
		if err != nil {
			return
		}
		switch f.Kind {
		case FrameGo:
			if !started {
				started = true
				close(goCh)
			}
		case FrameSignal:
			d.signal(int(f.Rank), syscall.Signal(f.Arg))
		case FrameRelay:
			ks.route(f)
		case FrameStdin, FrameStdinEOF:
			// gompirun forwards stdin once it said go; it goes to rank 0
			// once the ranks are started. The sink never waits for a rank.
			<-d.ranksUp
			if f.Kind == FrameStdin {
				d.stdinSink().push(f.Payload)
			} else {
				d.stdinSink().push(nil)
			}
		}
	}
}

// daemon runs one host's ranks of a job.
type daemon struct {
	spec   *DaemonSpec
	server string // the job server's address from this host
	sess   *Session
	out    *FrameWriter
	errOut io.Writer // the daemon's own complaints
	exits  chan rankExit

	cpus    [][]int       // by local rank: the CPUs the rank is bound to; nil: every CPU the host allows
	stdin   *stdinSink    // rank 0's stdin, when it runs here and gompirun forwards its own; set before ranksUp closes
	ranksUp chan struct{} // closed once run has started the ranks (or failed to)

	mu   sync.Mutex
	pids map[int]int // job rank -> pid, of the ranks running
	// early holds the signals gompirun sent to ranks not started yet,
	// which they get once started: starting a rank waits for the wire,
	// which gompirun may read only once it has stopped the job (its
	// output stuck on a terminal nobody reads).
	early map[int][]syscall.Signal
}

// prepare finds the programs of this host's ranks and their CPUs, and
// reports each rank that cannot run here.
func (d *daemon) prepare() ([]Program, bool) {
	if bind, _ := parseBind(d.spec.Bind); bind != BindNone { // the spec was checked
		cpus, err := hostCPUs()
		if err != nil {
			d.failAll(fmt.Sprintf("binding the ranks (--bind-to %s): %v", bind, err))
			return nil, false
		}
		d.cpus = bind.RankCPUs(len(d.spec.Ranks), cpus)
	}
	if st, err := os.Stat(d.spec.Dir); err != nil || !st.IsDir() {
		d.spec.Dir = "" // as Open MPI: the ranks start in the daemon's directory (the login's home)
	}
	if err := missingTuneFiles(d.spec.Env); err != nil {
		d.failAll(err.Error())
		return nil, false
	}
	progs := make([]Program, len(d.spec.Apps))
	progErrs := make([]error, len(d.spec.Apps))
	for i, app := range d.spec.Apps {
		// A relative path is gompirun's, as the ranks' directory is.
		progs[i], progErrs[i] = ResolveProgram(d.spec.Dir, app.Program, app.Args)
	}
	ok := true
	for _, r := range d.spec.Ranks {
		if err := progErrs[r.App]; err != nil {
			d.report(Frame{Kind: FrameFailed, Rank: int32(r.Rank), Payload: []byte(err.Error())})
			ok = false
		}
	}
	return progs, ok
}

// run starts the ranks, serves gompirun's frames and reports the ranks'
// exits until every rank has exited.
func (d *daemon) run(progs []Program, eof <-chan struct{}, sigs <-chan os.Signal) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		close(d.ranksUp)
		d.failAll(fmt.Sprintf("creating the ranks' lifeline: %v", err))
		return
	}
	defer lifeW.Close()
	base := RankEnvBase(append(os.Environ(), d.spec.Env...))
	var pumps []*sync.WaitGroup
	byRank := map[int]*sync.WaitGroup{}
	for _, r := range d.spec.Ranks {
		wg, err := d.start(progs[r.App], base, r, lifeR)
		if err != nil {
			d.report(Frame{Kind: FrameFailed, Rank: int32(r.Rank), Payload: []byte(err.Error())})
			continue
		}
		pumps = append(pumps, wg)
		byRank[r.Rank] = wg
	}
	lifeR.Close()
	close(d.ranksUp)

	stop := eof
	var kill <-chan time.Time
	for {
		d.mu.Lock()
		left := len(d.pids)
		d.mu.Unlock()
		if left == 0 {
			break
		}
		select {
		case ev := <-d.exits:
			waitBounded(byRank[ev.rank], 2*time.Second) // its output first
			d.mu.Lock()
			delete(d.pids, ev.rank)
			d.mu.Unlock()
			_ = SignalGroup(ev.pid, syscall.SIGKILL) // what it left in its group
			d.report(Frame{Kind: FrameExited, Rank: int32(ev.rank), Arg: uint32(ev.status), Payload: []byte(strconv.Itoa(ev.pid))})
		case <-stop:
			stop = nil
			d.signal(-1, syscall.SIGTERM)
			kill = time.After(time.Duration(d.spec.Grace))
		case <-sigs:
			sigs = nil
			if stop != nil { // else the ranks are being stopped already
				d.signal(-1, syscall.SIGTERM)
				kill = time.After(time.Duration(d.spec.Grace))
			}
		case <-kill:
			kill = nil
			d.signal(-1, syscall.SIGKILL)
		}
	}
	for _, wg := range pumps {
		waitBounded(wg, 2*time.Second)
	}
	d.sendParts()
}

// sendParts sends gompirun the profiling parts the ranks left in this
// host's session directory: gompirun merges every host's.
func (d *daemon) sendParts() {
	parts, bad := jobfiles.ReadParts(d.sess.Dir, d.spec.Size)
	for _, err := range bad {
		fmt.Fprintf(d.errOut, "profiling parts: %v; ignored\n", err)
	}
	for tool, byRank := range parts {
		for rank, part := range byRank {
			payload := append([]byte(tool+"\x00"), part...)
			d.report(Frame{Kind: FramePart, Rank: int32(rank), Payload: payload})
		}
	}
}

// start starts one rank and the pumps of its output.
func (d *daemon) start(prog Program, base []string, r DaemonRank, lifeline *os.File) (*sync.WaitGroup, error) {
	var rio RankIO
	var childEnds []*os.File
	wg := &sync.WaitGroup{}
	for _, stream := range []uint32{Stdout, Stderr} {
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(childEnds)
			return nil, fmt.Errorf("cannot start rank %d: %w", r.Rank, err)
		}
		if stream == Stdout {
			rio.Stdout = pw
		} else {
			rio.Stderr = pw
		}
		childEnds = append(childEnds, pw)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pr.Close()
			d.pump(pr, r.Rank, stream)
		}()
	}
	var stdinW *os.File
	if r.Rank == 0 && d.spec.Stdin {
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(childEnds)
			return nil, fmt.Errorf("cannot start rank %d: its stdin: %w", r.Rank, err)
		}
		rio.Stdin, stdinW = pr, pw
		childEnds = append(childEnds, pr)
	}
	id := RankIdent{Rank: r.Rank, Size: d.spec.Size, Local: r.Local, LocalSize: len(d.spec.Ranks),
		JobID: d.spec.JobID, Server: d.server, SessionDir: d.sess.Dir, Secret: d.spec.Secret}
	cmd := prog.Command(RankEnv(base, d.spec.Apps[r.App], r.App, id), rio)
	cmd.Dir = d.spec.Dir
	cmd.ExtraFiles = []*os.File{lifeline} // descriptor 3: LifelineFD
	d.mu.Lock()
	defer d.mu.Unlock() // an exit is not counted before the rank is
	// Unbound, a rank gets every CPU, not the daemon's mask: a launcher
	// that binds its one task (a Slurm step) to one CPU would otherwise
	// put every rank there.
	cpus := everyCPU()
	if d.cpus != nil {
		cpus = d.cpus[r.Local]
	}
	pid, err := StartRank(cmd, cpus, func(pid int, status syscall.WaitStatus) {
		d.exits <- rankExit{rank: r.Rank, pid: pid, status: status}
	})
	closeAll(childEnds)
	if err != nil {
		if stdinW != nil {
			stdinW.Close()
		}
		return nil, fmt.Errorf("cannot start rank %d (program %q): %w", r.Rank, prog.Path, err)
	}
	if stdinW != nil {
		d.stdin = newStdinSink(stdinW, d.ackStdin)
	}
	d.pids[r.Rank] = pid
	for _, sig := range d.early[r.Rank] {
		_ = SignalGroup(pid, sig)
	}
	delete(d.early, r.Rank)
	d.report(Frame{Kind: FrameStarted, Rank: int32(r.Rank), Arg: uint32(pid)})
	return wg, nil
}

// pump sends a rank's output to gompirun as it comes.
func (d *daemon) pump(r io.Reader, rank int, stream uint32) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			d.report(Frame{Kind: FrameOutput, Rank: int32(rank), Arg: stream, Payload: append([]byte(nil), buf[:n]...)})
		}
		if err != nil {
			return
		}
	}
}

// signal sends sig to a rank's process group, or every rank's for -1;
// a rank not started yet gets it once it is.
func (d *daemon) signal(rank int, sig syscall.Signal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.spec.Ranks {
		if rank >= 0 && r.Rank != rank {
			continue
		}
		if pid, ok := d.pids[r.Rank]; ok {
			_ = SignalGroup(pid, sig)
		} else {
			d.early[r.Rank] = append(d.early[r.Rank], sig) // or exited: then never started again
		}
	}
}

// report sends a frame to gompirun; once gompirun is gone nobody reads,
// and the ranks are stopped by the end of the daemon's input.
func (d *daemon) report(f Frame) { _ = d.out.Write(f) }

// failAll reports every rank as not started.
func (d *daemon) failAll(why string) {
	for _, r := range d.spec.Ranks {
		d.report(Frame{Kind: FrameFailed, Rank: int32(r.Rank), Payload: []byte(why)})
	}
}

// missingTuneFiles names the job's --tune files that this host lacks. Each
// rank reads them, so they must be at the same path on every host, as the
// program is; gompirun checked them on its own host.
func missingTuneFiles(env []string) error {
	in, err := params.EnvInputs(env)
	if err != nil {
		return err
	}
	var missing []string
	for _, path := range in.TuneFiles {
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			missing = append(missing, path)
		}
	}
	if missing == nil {
		return nil
	}
	return fmt.Errorf("--tune %s: no such file on this host; each rank reads its --tune files, which must be at the same path on every host, as the program", strings.Join(missing, ","))
}

// rankExit reports that a rank's process ended.
type rankExit struct {
	rank, pid int
	status    syscall.WaitStatus
}

// waitBounded waits for wg, at most d: a process that escaped its rank's
// group may hold the rank's output open.
func waitBounded(wg *sync.WaitGroup, d time.Duration) {
	if wg == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// DaemonFlag is the argument that starts gompirun in daemon mode, where
// it has no gompi-daemon beside it.
const DaemonFlag = "--daemon"

// DaemonName is the daemon's own program, installed beside gompirun. It
// links little more than the standard library, so it starts in a
// fraction of gompirun's time on every host of a launch.
const DaemonName = "gompi-daemon"

// Main runs the daemon as the program the launch agent started: its
// standard files are the wire, whose input is its lifeline; SIGINT,
// SIGTERM and SIGHUP stop its ranks as the end of that input does.
// gompi-reaper beside it, else the program itself, is its host's reaper.
func Main() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	reaperExe := "" // none: the daemon still cleans up when it ends in order
	if exe, err := os.Executable(); err == nil {
		reaperExe = reaper.Exe(exe)
	}
	return RunDaemon(os.Stdin, os.Stdout, os.Stderr, "", reaperExe, sigs)
}
