package pml

import (
	"bytes"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	for typ := typeMatch; typ <= typeCancelAck; typ++ {
		h := header{typ: typ, flags: flagSync, context: 9, source: 3, tag: -4, total: 1 << 33, sreq: 5, rreq: 6}
		b := h.encode(make([]byte, HeaderSize))
		if typ == typeMatch {
			if len(b) != MatchHeaderSize {
				t.Fatalf("an eager header is %d bytes, want %d", len(b), MatchHeaderSize)
			}
			h.total, h.sreq, h.rreq = 0, 0, 0 // not carried: the payload's length is the size
		}
		got, err := decodeHeader(b)
		if err != nil || got != h {
			t.Fatalf("type %d: decoded %+v, %v; want %+v", typ, got, err, h)
		}
	}
}

// TestEncodeMatchIsEncode: the eager header's two-word form is encode's.
func TestEncodeMatchIsEncode(t *testing.T) {
	for _, h := range []header{
		{typ: typeMatch},
		{typ: typeMatch, context: 1<<32 - 1, source: -1, tag: -1},
		{typ: typeMatch, context: 7, source: 12345, tag: 1<<31 - 1},
	} {
		want := h.encode(make([]byte, HeaderSize))
		if got := encodeMatch(make([]byte, HeaderSize), h.context, h.source, h.tag); !bytes.Equal(got, want) {
			t.Errorf("%+v: encodeMatch % x, encode % x", h, got, want)
		}
	}
}

func TestHeaderRefusals(t *testing.T) {
	full := (&header{typ: typeRTS}).encode(make([]byte, HeaderSize))
	eager := (&header{typ: typeMatch}).encode(make([]byte, HeaderSize))
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "header of 0 bytes"},
		{"old version", append([]byte{2}, full[1:]...), "version 2"},
		{"unknown type", append([]byte{headerVersion, 99}, full[2:]...), "unknown fragment type 99"},
		{"eager header of full size", append(eager, make([]byte, HeaderSize-MatchHeaderSize)...), "want 16"},
		{"rendezvous header cut short", full[:MatchHeaderSize], "want 40"},
	} {
		if _, err := decodeHeader(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
