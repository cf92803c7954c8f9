package pml

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
)

// vectorCopier is a module whose peers' exposed buffers are its tokens'
// entries in bufs; it records how the engine reads them and what it sends.
type vectorCopier struct {
	btl.Module // nil: only what the engine's single-copy path calls is here
	bufs       map[uint64][]byte
	failAll    bool
	readAlls   [][]uint64 // tokens of each ReadAll call
	reads      []uint64   // tokens of each Read call
	sent       []int      // peer of each FIN, in order
	held       []bool     // whether each FIN was posted (held back)
}

func (v *vectorCopier) Name() string              { return "vector" }
func (v *vectorCopier) SingleCopyMin(int) int     { return 1 }
func (v *vectorCopier) Expose(int, []byte) uint64 { return 0 }

func (v *vectorCopier) Read(_ int, token uint64, off int, dst []byte) error {
	v.reads = append(v.reads, token)
	copy(dst, v.bufs[token][off:])
	return nil
}

func (v *vectorCopier) ReadAll(_ int, tokens []uint64, dsts [][]byte) error {
	v.readAlls = append(v.readAlls, append([]uint64(nil), tokens...))
	if v.failAll {
		return errors.New("refused")
	}
	for i, tok := range tokens {
		copy(dsts[i], v.bufs[tok])
	}
	return nil
}

func (v *vectorCopier) Send(_ context.Context, peer int, _, _ []byte) error {
	v.sent, v.held = append(v.sent, peer), append(v.held, false)
	return nil
}

func (v *vectorCopier) Post(_ context.Context, peer int, _, _ []byte) error {
	v.sent, v.held = append(v.sent, peer), append(v.held, true)
	return nil
}

func (v *vectorCopier) Flush(int) {}

// TestGetAllBatchesByPeer hands getAll the reads one poll matched: a
// peer's consecutive reads go in one ReadAll up to maxGetBatch bytes, a
// lone one in Read, and each completes with its bytes and a FIN, the FINs
// of a batch held back but its last.
func TestGetAllBatchesByPeer(t *testing.T) {
	for _, failAll := range []bool{false, true} {
		v := &vectorCopier{bufs: map[uint64][]byte{}, failAll: failAll}
		e := New(0, hclog.NewNullLogger(), DefaultConfig())
		e.Start(transports{v})
		const size = maxGetBatch / 4
		peers := []int{1, 1, 1, 1, 1, 2, 2, 1}
		var gets []get
		for i, from := range peers {
			tok := uint64(i + 1)
			v.bufs[tok] = bytes.Repeat([]byte{byte(i)}, size)
			r := e.request(nil, kindRecv, 0, from, 5, make([]byte, size), nil, false)
			r.from, r.total, r.accepted = from, size, size
			gets = append(gets, get{r: r, from: from, h: header{typ: typeRTS, tag: 5, size: size, flags: flagGet, token: tok}})
		}
		e.getAll(gets)

		wantBatches := [][]uint64{{1, 2, 3, 4}, {6, 7}}
		wantReads := []uint64{5, 8}
		if failAll {
			wantReads = []uint64{1, 2, 3, 4, 5, 6, 7, 8}
		}
		if !slices.EqualFunc(v.readAlls, wantBatches, slices.Equal) || !slices.Equal(v.reads, wantReads) {
			t.Errorf("failAll %v: ReadAll %v and Read %v, want %v and %v", failAll, v.readAlls, v.reads, wantBatches, wantReads)
		}
		for i, g := range gets {
			st := e.Wait(g.r)
			if st.Err != nil || st.Bytes != size || st.Source != peers[i] || !bytes.Equal(g.r.buf, v.bufs[uint64(i+1)]) {
				t.Errorf("failAll %v: read %d: status %+v, bytes right %v", failAll, i, st, bytes.Equal(g.r.buf, v.bufs[uint64(i+1)]))
			}
		}
		if !slices.Equal(v.sent, peers) {
			t.Errorf("failAll %v: FINs to %v, want %v", failAll, v.sent, peers)
		}
		wantHeld := []bool{true, true, true, false, false, true, false, false}
		if failAll {
			wantHeld = make([]bool, len(peers))
		}
		if !slices.Equal(v.held, wantHeld) {
			t.Errorf("failAll %v: FINs held %v, want %v", failAll, v.held, wantHeld)
		}
	}
}
