package trace

import (
	"reflect"
	"testing"
)

func sampleRank() rankTrace {
	return rankTrace{Rank: 3, Offset: -12345, Measured: -12345, RTT: 678, Truncated: true, Threads: map[int32]uint64{1: 1, 2: 40},
		Events: []wireEvent{
			{Name: "MPI_Send", Ts: 1_700_000_000_000_000_000, Dur: 900, Tid: 1,
				Args:  wireArgs{Set: uint8(hasPeer | hasTag | hasBytes), Comm: "world", CommID: "world", Peer: 1, Tag: 7, Bytes: 64},
				Flows: []wireFlow{{ID: 1<<53 - 1}}},
			{Name: "MPI_WaitAll", Ts: 1_699_999_999_999_999_000, Dur: 5, Tid: 2,
				Args:  wireArgs{Set: uint8(hasCount), Count: 2, Err: "boom"},
				Flows: []wireFlow{{ID: 5, In: true}, {ID: 6, In: true}}},
			{Name: "MPI_Send", Kind: processMark, Ts: 1_700_000_000_000_001_000, Tid: 1,
				Args: wireArgs{Comm: "world", CommID: "world", Label: "x", Peer: -2, SendBytes: 1 << 40}},
		}}
}

// TestCodecRoundTrip: a rank's trace survives the trip to gompirun.
func TestCodecRoundTrip(t *testing.T) {
	rt := sampleRank()
	got, err := decodeRank(encodeRank(rt))
	must(t, err)
	if !reflect.DeepEqual(got, rt) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, rt)
	}
}

// TestCodecDamaged: every truncation, and trailing bytes, are errors, not
// panics or silent losses.
func TestCodecDamaged(t *testing.T) {
	b := encodeRank(sampleRank())
	for n := range len(b) {
		if _, err := decodeRank(b[:n]); err == nil {
			t.Fatalf("%d of %d bytes decoded without error", n, len(b))
		}
	}
	if _, err := decodeRank(append(b, 0)); err == nil {
		t.Error("a trailing byte went unnoticed")
	}
}
