package launcher

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/rte/rtepb"
)

func recvOp(from, tag int32, site string) *rtepb.PendingOp {
	return &rtepb.PendingOp{Kind: "recv", Peer: from, PeerWorld: from, Tag: tag, Comm: "world", Bytes: 8,
		Call: "Recv", Site: site, WaitedNs: 1e9}
}

func TestAnalyzeFindsEachCycleOnce(t *testing.T) {
	reports := []*rtepb.StateReport{
		{Rank: 0, Ops: []*rtepb.PendingOp{recvOp(1, 7, "a.go:1")}},
		{Rank: 1, Ops: []*rtepb.PendingOp{recvOp(2, 7, "a.go:2")}},
		{Rank: 2, Ops: []*rtepb.PendingOp{recvOp(0, 7, "a.go:3")}},
		{Rank: 3, Ops: []*rtepb.PendingOp{recvOp(-1, -1, "a.go:4")}}, // any source: no edge
		nil, // did not answer
	}
	got := analyze(reports)
	want := "deadlock: rank 0 waits to receive from 1 tag 7 on world at a.go:1; rank 1 waits to receive from 2 tag 7 on world at a.go:2; " +
		"rank 2 waits to receive from 0 tag 7 on world at a.go:3"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("analyze:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestAnalyzeIgnoresWhatNobodyWaitsOn(t *testing.T) {
	posted := recvOp(1, 7, "")
	posted.Call = "" // an Irecv nobody waits on
	reports := []*rtepb.StateReport{
		{Rank: 0, Ops: []*rtepb.PendingOp{posted}},
		{Rank: 1, Ops: []*rtepb.PendingOp{recvOp(0, 7, "b.go:9")}},
	}
	if got := analyze(reports); len(got) != 0 {
		t.Fatalf("analyze: %q, want nothing: rank 0 waits on nothing", got)
	}
}

func TestAnalyzeFindsAMismatchedSend(t *testing.T) {
	// Rank 0's rendezvous send to 1 has tag 9; rank 1 waits for tag 7.
	reports := []*rtepb.StateReport{
		{Rank: 0, Ops: []*rtepb.PendingOp{{Kind: "send", Peer: 1, PeerWorld: 1, Tag: 9, Comm: "world", Bytes: 1 << 20}}},
		{Rank: 1, Ops: []*rtepb.PendingOp{recvOp(0, 7, "c.go:5")}},
	}
	got := analyze(reports)
	want := "no send matches: rank 1 waits to receive from 0 tag 7 on world at c.go:5, but what rank 0 sent it has tag 9 on world"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("analyze: %q, want %q", got, want)
	}
	// A matching message that a matched probe took matches no receive
	// but its Mrecv.
	reports[1].Unexpected = []*rtepb.UnexpectedMessage{{From: 0, FromWorld: 0, Tag: 7, Comm: "world", Bytes: 8, Probed: true}}
	got = analyze(reports)
	want = "no send matches: rank 1 waits to receive from 0 tag 7 on world at c.go:5, but what rank 0 sent it has " +
		"tag 7 on world, taken by a matched probe (Mprobe) for its Mrecv, tag 9 on world"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("analyze with a probed message: %q, want %q", got, want)
	}
	if got, want := describeMessage(reports[1].Unexpected[0]), "from rank 0, tag 7, comm world, 8 bytes, matched by Mprobe and not yet received"; got != want {
		t.Errorf("describeMessage: %q, want %q", got, want)
	}
	// A matching message already here means no mismatch.
	reports[1].Unexpected[0].Probed = false
	if got := analyze(reports); len(got) != 0 {
		t.Fatalf("analyze with a matching message: %q", got)
	}
}

// A collective waiting on shared memory (coll sm) is described as such
// and is an edge of the wait-for graph like a receive.
func TestSharedMemoryWait(t *testing.T) {
	shared := &rtepb.PendingOp{Kind: "coll", Peer: 1, PeerWorld: 3, Tag: -1, Comm: "world.split.0", Collective: "barrier",
		Call: "Barrier", Site: "d.go:7", WaitedNs: 2e9}
	if got, want := describeOp(shared), "waits in Barrier at d.go:7 for 2s: the part of rank 1 (world rank 3) in shared memory inside barrier, comm world.split.0"; got != want {
		t.Errorf("describeOp:\n%s\nwant:\n%s", got, want)
	}
	shared.PeerWorld, shared.Comm = 1, "world"
	reports := []*rtepb.StateReport{
		{Rank: 0, Ops: []*rtepb.PendingOp{shared}},
		{Rank: 1, Ops: []*rtepb.PendingOp{recvOp(0, 7, "d.go:9")}},
	}
	got := analyze(reports)
	want := "deadlock: rank 0 waits for 1 inside barrier on world at d.go:7; rank 1 waits to receive from 0 tag 7 on world at d.go:9"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("analyze: %q, want %q", got, want)
	}
}

// TestAFinalizingRankIsReported: a rank in Finalize is said to wait
// there, not to have nothing pending, and a rank that waits for it in a
// collective is told that it left without that call.
func TestAFinalizingRankIsReported(t *testing.T) {
	reports := []*rtepb.StateReport{
		{Rank: 0, Ops: []*rtepb.PendingOp{{Kind: "finalize", Peer: -1, PeerWorld: -1, Tag: -1, Comm: "world", Call: "Finalize", Site: "main.go:9"}}},
		{Rank: 1, Ops: []*rtepb.PendingOp{{Kind: "coll", Peer: 0, PeerWorld: 0, Tag: -1, Comm: "world", Collective: "barrier",
			Call: "Barrier", Site: "main.go:7", WaitedNs: 2e9}}},
	}
	var b strings.Builder
	writeState(&b, "test", []string{"pid 10", "pid 11 on host h2"}, make([]string, 2), reports, stateAnswerWait)
	for _, want := range []string{
		"rank 0 (pid 10) waits in Finalize at main.go:9 for every rank to call Finalize\n",
		"gompirun: rank 1 waits for 0 inside barrier on world at main.go:7, but rank 0 waits in Finalize at main.go:9: " +
			"it left without the call rank 1 waits in\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "no pending MPI operation") {
		t.Errorf("a rank in Finalize reported as having nothing pending:\n%s", b.String())
	}
}
