package sm

import (
	"os/exec"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/lowlevel"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// TestContract runs the btl conformance suite on three ranks of one host,
// and its checks of payloads in pieces (btl.Gatherer, btl.ScatterCopier).
//
// The ranks share this process, so the suite's Kill (killRank) makes a
// rank dead the way its survivors can tell: the pid they watch for it
// (checkPeer) becomes that of a process killed with SIGKILL and reaped,
// and it dies in the middle of a transfer, a fragment written into each
// of its rings but never published.
func TestContract(t *testing.T) {
	var mu sync.Mutex
	jobs := map[*Module]*contractJob{} // by each of the job's modules
	perRank := btltest.PerRank(func(t testing.TB, env btl.InitEnv) btl.Component {
		c, err := openComponent(t, "btl_sm_backing_directory", env.SessionDir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	suite := btltest.Suite{
		Size: 3,
		New: func(t *testing.T, envs []btl.InitEnv) []btl.Module {
			mods := perRank(t, envs)
			j := &contractJob{t: t}
			mu.Lock()
			defer mu.Unlock()
			for _, m := range mods {
				j.mods = append(j.mods, m.(*Module))
				jobs[m.(*Module)] = j
			}
			t.Cleanup(func() {
				mu.Lock()
				defer mu.Unlock()
				for _, m := range j.mods {
					delete(jobs, m)
				}
			})
			return mods
		},
		Reaches: func(from, to int) bool { return from != to },
		Kill: func(rank int, m btl.Module) {
			mu.Lock()
			j := jobs[m.(*Module)]
			mu.Unlock()
			j.killRank(rank)
		},
	}
	btltest.Run(t, suite)
}

// contractJob is one job of the suite: its modules by rank, and the test
// it runs for.
type contractJob struct {
	t    *testing.T
	mods []*Module
}

// killRank kills rank as SIGKILL would, as far as its survivors can see.
// A dead process neither drains nor finalizes: the suite no longer drives
// the rank's module, and its state in the segment stays attached. Its last
// fragment to each peer is written into the ring, staged but never
// published, as by a rank killed between writing a record and publishing
// it. Its peers watch its pid, which now names a process that was killed
// and reaped.
func (j *contractJob) killRank(rank int) {
	t := j.t
	t.Helper()
	dead := j.mods[rank]
	for _, p := range dead.peers {
		if p == nil {
			continue
		}
		if !dead.lock(p) {
			t.Fatalf("rank %d: finalized before it was killed", rank)
		}
		// put stages it; the module's hold, which would arm the flusher,
		// is left out, so nothing publishes it.
		staged := p.out.put(make([]byte, btl.MaxHeaderSize), make([]byte, dead.MaxSendSize()), true)
		lowlevel.UnlockFlag(&p.sending)
		if !staged {
			t.Fatalf("rank %d: no room for a last fragment to rank %d", rank, p.rank)
		}
	}
	pid := killedPID(t)
	for r, m := range j.mods {
		if p := m.peers[rank]; r != rank && p != nil {
			p.pid.Store(int64(pid))
		}
	}
}

// killedPID starts a process, kills it with SIGKILL and reaps it: its pid
// then names no process, as a killed rank's does once its launcher has
// reaped it. (The kernel hands out pids in turn: one is reused only after
// the pid space wraps, not within a test.)
func killedPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting a process to kill: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("killing pid %d: %v", cmd.Process.Pid, err)
	}
	_ = cmd.Wait() // "signal: killed"
	pid := cmd.ProcessState.Pid()
	if alive(pid) {
		t.Fatalf("pid %d, killed and reaped, names a live process", pid)
	}
	return pid
}
