package sm

import (
	"bytes"
	"sync"
	"testing"
)

// pattern is n bytes that differ from any shift of themselves by less
// than 251 bytes, so a piece copied to the wrong offset shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// sharedJob is a 2-rank job that shares copies from 64 KiB, or skips the
// test where the kernel refuses cross-memory attach.
func sharedJob(t *testing.T) *testJob {
	t.Helper()
	j := newTestJob(t, 2, "btl_sm_shared_copy_threshold", "64k")
	if j.mods[1].SingleCopyMin(0) == 0 || j.mods[0].SingleCopyMin(1) == 0 {
		t.Skip("cross-memory attach is not allowed here")
	}
	return j
}

// TestSharedCopyWithoutHelper: rank 0 never polls, so rank 1 copies every
// piece itself; the help record it sent is then stale and claims nothing.
func TestSharedCopyWithoutHelper(t *testing.T) {
	j := sharedJob(t)
	for _, n := range []int{64 << 10, 64<<10 + 1, 5<<16 + 7, 3 << 20} {
		src := pattern(n + 3)
		dst := make([]byte, n)
		if err := j.mods[1].Read(0, j.mods[0].Expose(1, src), 3, dst); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(dst, src[3:]) {
			t.Fatalf("%d bytes: read wrong", n)
		}
		if got := j.mods[0].Progress(); got != 0 {
			t.Fatalf("rank 0 delivered %d fragments from a help record", got)
		}
		if len(j.boxes[0].snapshot()) != 0 {
			t.Fatal("a help record reached the upper layer")
		}
	}
	// After unhelpedLimit copies that rank 0 took no part in, rank 1 stops
	// asking for aloneCopies copies: of the four, two were shared.
	p := j.mods[1].peers[0]
	if p.copySeq != unhelpedLimit || p.alone != aloneCopies-2 {
		t.Errorf("rank 1 numbered %d shared copies and has %d to make alone, want %d and %d",
			p.copySeq, p.alone, unhelpedLimit, aloneCopies-2)
	}
}

// TestBusySenderIsNotAsked: a sender that takes no part in unhelpedLimit
// shared copies in a row is not asked for the next aloneCopies, then is
// again; one that takes part keeps being asked.
func TestBusySenderIsNotAsked(t *testing.T) {
	j := sharedJob(t)
	p := j.mods[1].peers[0]
	const units = 4
	for range unhelpedLimit {
		if !j.mods[1].shares(p, 64<<10) {
			t.Fatal("a copy is not shared before the sender missed any")
		}
		p.copying.Store(false)
		p.tally(units, units) // the back cursor never moved: no help
	}
	for i := range aloneCopies {
		if j.mods[1].shares(p, 64<<10) {
			t.Fatalf("copy %d after the sender missed %d is shared", i, unhelpedLimit)
		}
	}
	if !j.mods[1].shares(p, 64<<10) {
		t.Fatalf("the copy after %d alone is not shared", aloneCopies)
	}
	p.copying.Store(false)
	for range 3 * unhelpedLimit {
		p.tally(units, units)
		p.tally(units-1, units) // helped: the count starts again
	}
	if p.alone != 0 {
		t.Errorf("a sender that helped every other copy is skipped for %d copies", p.alone)
	}
}

// poll polls rank's module from another goroutine, as a rank that waits
// in a call does, until the returned function is called.
func (j *testJob) poll(rank int) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-quit:
				return
			default:
				j.mods[rank].Progress()
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// TestSharedCopyWhileTheSenderPolls copies while rank 0 polls, so that it
// may take pieces from the back: whichever side copies which piece, the
// bytes must arrive whole.
func TestSharedCopyWhileTheSenderPolls(t *testing.T) {
	j := sharedJob(t)
	src := pattern(4<<20 + 12345)
	for range 8 {
		dst := make([]byte, len(src))
		stop := j.poll(0)
		err := j.mods[1].Read(0, j.mods[0].Expose(1, src), 0, dst)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dst, src) {
			t.Fatal("shared copy read wrong")
		}
		t.Logf("sender wrote %d units", j.mods[1].seg.copySlot(1, 0).done.Load())
	}
}

// TestHelperTakesHalves drives the sender's side alone: with the receiver
// claiming nothing, the sender takes half of what is left each time from
// the back until it has written everything.
func TestHelperTakesHalves(t *testing.T) {
	j := sharedJob(t)
	src := pattern(9<<16 + 100)
	dst := make([]byte, len(src))
	slot := j.mods[1].seg.copySlot(1, 0) // rank 1 receives from rank 0
	units := slot.start(7, uintptr(j.mods[0].Expose(1, src)), dst)
	p := j.mods[0].peers[1]
	j.mods[0].help(p, 6) // another copy's record: nothing to do
	if got := slot.claim.Load(); got != 7<<40|units {
		t.Fatalf("a stale record claimed: claim %#x", got)
	}
	j.mods[0].help(p, 7)
	if front, back := cursors(slot.claim.Load()); front != 0 || back != 0 {
		t.Fatalf("cursors %d, %d after the sender's help; want 0, 0", front, back)
	}
	if got := slot.done.Load(); got != units {
		t.Fatalf("done %d, want %d", got, units)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("the sender wrote wrong")
	}
	if slot.bad.Load() != 0 || p.helpless {
		t.Fatal("a write that succeeded was marked failed")
	}
}

// TestHelperThatCannotWrite: a sender whose write fails marks its pieces
// for the receiver, stops helping that peer, and the receiver reads them.
func TestHelperThatCannotWrite(t *testing.T) {
	j := sharedJob(t)
	src := pattern(4 << 16)
	dst := make([]byte, len(src))
	slot := j.mods[1].seg.copySlot(1, 0)
	token := uintptr(j.mods[0].Expose(1, src))
	units := slot.start(1, token, dst)
	slot.dst.Store(8) // no page there: process_vm_writev fails
	p := j.mods[0].peers[1]
	j.mods[0].help(p, 1)
	if !p.helpless {
		t.Fatal("the sender still offers help after a failed write")
	}
	bad := slot.bad.Load()
	lo, hi := cursors(bad)
	if bad == 0 || lo != units/2 || hi != units || slot.done.Load() != units/2 {
		t.Fatalf("bad %#x (units %d-%d), done %d; want units 2-4 bad and done", bad, lo, hi, slot.done.Load())
	}
	// The receiver's own half, then what the sender could not write.
	copy(dst[:len(dst)/2], src)
	slot.claim.Store(1<<40 | units/2<<20 | units/2)
	if err := j.mods[1].finishShared(j.mods[1].peers[0], slot, units, token, dst, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("the receiver did not read what the sender could not write")
	}
	before := slot.claim.Load()
	slot.claim.Store(2<<40 | units)
	j.mods[0].help(p, 2)
	if front, back := cursors(slot.claim.Load()); front != 0 || back != units {
		t.Fatalf("a helpless sender claimed units (cursors %d, %d; before %#x)", front, back, before)
	}
}

// TestSharedCopyOff: ranks that share CPUs copy alone,
// and a threshold of 0 turns sharing off.
func TestSharedCopyOff(t *testing.T) {
	j := sharedJob(t)
	p := j.mods[1].peers[0]
	if !j.mods[1].shares(p, 64<<10) {
		t.Fatal("a 64 KiB copy is not shared at a 64 KiB threshold")
	}
	p.copying.Store(false)
	if j.mods[1].shares(p, 64<<10-1) {
		t.Error("a copy below the threshold is shared")
	}
	j.mods[1].oversubscribed = true
	if j.mods[1].shares(p, 1<<20) {
		t.Error("ranks that share CPUs share a copy")
	}
	off := newTestJob(t, 2, "btl_sm_shared_copy_threshold", "0")
	if off.mods[1].shares(off.mods[1].peers[0], 1<<30) {
		t.Error("a copy is shared with sharing off")
	}
}
