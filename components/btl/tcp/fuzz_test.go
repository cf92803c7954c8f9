package tcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

func frameBytes(h frameHeader, rest ...byte) []byte {
	b := make([]byte, frameHeaderSize)
	h.Put(b)
	return append(b, rest...)
}

func FuzzFrameHeader(f *testing.F) {
	f.Add(frameBytes(frameHeader{HeaderLen: 1}, 'h'))
	f.Add(frameBytes(frameHeader{HeaderLen: 2, PayloadLen: 3}, []byte("hhppp")...))
	f.Add(frameBytes(frameHeader{HeaderLen: btl.MaxHeaderSize, PayloadLen: maxPayload}))
	f.Add(frameBytes(frameHeader{HeaderLen: btl.MaxHeaderSize + 1}))
	f.Add(frameBytes(frameHeader{HeaderLen: 1, PayloadLen: maxPayload + 1}))
	f.Add(frameBytes(frameHeader{HeaderLen: 1, PayloadLen: 5 << 20}, 'h', 1, 2, 3))
	f.Add(frameBytes(frameHeader{Bye: true}))
	f.Add(append(frameBytes(frameHeader{HeaderLen: 1}, 'h'), frameBytes(frameHeader{Bye: true})...))
	f.Add([]byte("GMPF\x02\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeFrameHeader(data)
		if err != nil {
			if !errors.Is(err, errCorruptFrame) {
				t.Fatalf("error %v does not wrap errCorruptFrame", err)
			}
		} else {
			b := make([]byte, frameHeaderSize)
			h.Put(b)
			if !bytes.Equal(b, data[:frameHeaderSize]) {
				t.Fatalf("%x decodes to %+v, which encodes to %x", data[:frameHeaderSize], h, b)
			}
		}
		// The reader must end every finite stream with an error, and never
		// allocate for a length the stream does not back with bytes.
		c := &conn{m: &Module{pool: newBufPool(1 << 20), recv: btltest.NewReceiver()}, peer: &peer{rank: 3}}
		c.in.buf = make([]byte, readBufSize)
		// Feed the bytes in small reads, as a socket may, then end the stream.
		rest := data
		read := func(p []byte) (int, error) {
			n := copy(p, rest[:min(len(rest), 7)])
			rest = rest[n:]
			return n, nil
		}
		if _, err := c.pump(read, readFirst(read), true); err == nil || isWouldBlock(err) {
			t.Fatalf("pump ended a finite stream with %v", err)
		}
	})
}

// readFirst makes a readv of read: it reads into the first iovec.
func readFirst(read func([]byte) (int, error)) func([]unix.Iovec) (int, error) {
	return func(iov []unix.Iovec) (int, error) {
		return read(unsafe.Slice(iov[0].Base, iov[0].Len))
	}
}

// handshakeSeeds are one message of every type, valid but for the MACs.
func handshakeSeeds() [][]byte {
	var n [nonceSize]byte
	for i := range n {
		n[i] = byte(i)
	}
	return [][]byte{
		handshakeMsg{Type: msgHello, From: 0, To: 1, Nonce: n}.Append(nil),
		handshakeMsg{Type: msgChallenge, From: 1, To: 0, Nonce: n}.Append(nil),
		handshakeMsg{Type: msgProof}.Append(nil),
		handshakeMsg{Type: msgVerdict, Verdict: verdictAccept}.Append(nil),
	}
}

func FuzzHandshake(f *testing.F) {
	seeds := handshakeSeeds()
	for _, s := range seeds {
		f.Add(s)
		f.Add(s[:len(s)-1])
	}
	f.Add(append(append([]byte{}, seeds[0]...), seeds[2]...)) // hello then proof: the acceptor's script
	f.Add(append(append([]byte{}, seeds[1]...), seeds[3]...)) // challenge then verdict: the dialer's
	f.Add([]byte("GMPH\x01\x09\x00\x00"))
	f.Add(bytes.Repeat([]byte{0xff}, 100))
	a := &authority{secret: []byte("secret"), job: "job", rank: 1, size: 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeHandshake(data)
		if err != nil {
			if !errors.Is(err, errHandshake) {
				t.Fatalf("error %v does not wrap errHandshake", err)
			}
		} else if b := m.Append(nil); !bytes.Equal(b, data) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", data, m, b)
		}
		// Neither side accepts a stranger's bytes: the MACs cover fresh nonces.
		if _, err := a.accept(nil, bytes.NewReader(data), io.Discard); err == nil {
			t.Fatal("the acceptor authenticated a stranger")
		}
		if v, err := a.dial(bytes.NewReader(data), io.Discard, 0); err == nil {
			t.Fatalf("the dialer took verdict %v from a stranger", v)
		}
	})
}

// handshake runs a dialer and an acceptor against each other.
func handshake(t *testing.T, d, acc *authority, peer int, v verdictCode) (verdictCode, error, error) {
	t.Helper()
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	deadline := time.Now().Add(10 * time.Second)
	c1.SetDeadline(deadline)
	c2.SetDeadline(deadline)
	accErr := make(chan error, 1)
	go func() {
		s, err := acc.accept(nil, c2, c2)
		if err == nil {
			err = acc.verdict(c2, &s, v)
		}
		if err != nil {
			c2.Close()
		}
		accErr <- err
	}()
	got, err := d.dial(c1, c1, peer)
	if err != nil {
		c1.Close()
	}
	return got, err, <-accErr
}

func TestHandshake(t *testing.T) {
	secret := []byte("secret")
	zero := &authority{secret: secret, job: "j", rank: 0, size: 2}
	one := &authority{secret: secret, job: "j", rank: 1, size: 2}
	for _, v := range []verdictCode{verdictAccept, verdictYield, verdictRefuse} {
		got, derr, aerr := handshake(t, zero, one, 1, v)
		if derr != nil || aerr != nil || got != v {
			t.Fatalf("verdict %v: got %v, dialer error %v, acceptor error %v", v, got, derr, aerr)
		}
	}
	for name, tc := range map[string]struct {
		d, a *authority
		peer int
	}{
		"wrong secret":      {&authority{secret: []byte("guess"), job: "j", rank: 0, size: 2}, one, 1},
		"other job":         {&authority{secret: secret, job: "k", rank: 0, size: 2}, one, 1},
		"wrong target rank": {zero, &authority{secret: secret, job: "j", rank: 1, size: 3}, 2},
		"rank out of range": {&authority{secret: secret, job: "j", rank: 5, size: 9}, one, 1},
	} {
		_, derr, aerr := handshake(t, tc.d, tc.a, tc.peer, verdictAccept)
		if derr == nil || aerr == nil {
			t.Errorf("%s: dialer error %v, acceptor error %v; want both to fail", name, derr, aerr)
		}
	}
}

func TestFrameHeaderRoundTrip(t *testing.T) {
	for _, h := range []frameHeader{{HeaderLen: 1}, {HeaderLen: 256, PayloadLen: maxPayload}, {Bye: true}} {
		b := make([]byte, frameHeaderSize)
		h.Put(b)
		got, err := decodeFrameHeader(b)
		if err != nil || got != h {
			t.Errorf("%+v decodes to %+v, %v", h, got, err)
		}
	}
}
