package pml

import (
	"bytes"
	"strings"
	"testing"
)

// TestHeaderRoundTrip: every type carries its own fields and none of the
// others', whose words on the wire it shares.
func TestHeaderRoundTrip(t *testing.T) {
	all := header{flags: flagSync, context: 9, source: 3, tag: -4, mark: 8,
		size: 1 << 33, accepted: 1<<33 + 1, offset: 1<<33 + 2, sreq: 5, rreq: 6, token: 7, sent: 8}
	for _, tc := range []struct {
		typ   uint8
		flags uint16
		want  func(h *header) // keeps the fields the type carries
	}{
		{typeMatch, 0, func(h *header) { h.source, h.mark = 0, all.mark }}, // the transport names the source; the payload's length is the size
		{typeRTS, 0, func(h *header) { h.size, h.sreq, h.sent = all.size, all.sreq, all.sent }},
		{typeRTS, flagGet, func(h *header) { h.size, h.sreq, h.token = all.size, all.sreq, all.token }},
		{typeCTS, 0, func(h *header) { h.accepted, h.sreq, h.rreq = all.accepted, all.sreq, all.rreq }},
		{typeData, 0, func(h *header) { h.offset, h.sreq, h.rreq = all.offset, all.sreq, all.rreq }},
		{typeFin, 0, func(h *header) { h.accepted, h.sreq = all.accepted, all.sreq }},
		{typeCancel, 0, func(h *header) { h.sreq, h.mark = all.sreq, all.mark }},
		{typeCancelAck, 0, func(h *header) { h.sreq = all.sreq }},
	} {
		h := all
		h.typ, h.flags = tc.typ, all.flags|tc.flags
		b := h.encode(make([]byte, HeaderSize))
		size := HeaderSize
		if tc.typ == typeMatch {
			size = MatchHeaderSize
		}
		if len(b) != size {
			t.Fatalf("type %d: a header of %d bytes, want %d", tc.typ, len(b), size)
		}
		want := header{typ: tc.typ, flags: h.flags, context: all.context, source: all.source, tag: all.tag}
		tc.want(&want)
		got, err := decodeHeader(b)
		if err != nil || got != want {
			t.Fatalf("type %d: decoded %+v, %v; want %+v", tc.typ, got, err, want)
		}
	}
}

// TestEncodeMatchIsEncode: the eager header's two-word form is encode's.
func TestEncodeMatchIsEncode(t *testing.T) {
	for _, h := range []header{
		{typ: typeMatch},
		{typ: typeMatch, context: 1<<32 - 1, mark: 1<<32 - 1, tag: -1},
		{typ: typeMatch, context: 7, mark: 12345, tag: 1<<31 - 1},
	} {
		want := h.encode(make([]byte, HeaderSize))
		if got := encodeMatch(make([]byte, HeaderSize), h.context, h.mark, h.tag); !bytes.Equal(got, want) {
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
