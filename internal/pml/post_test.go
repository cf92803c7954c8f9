package pml

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// poster is a transport that can hold fragments back, recording how the
// engine hands them over.
type poster struct {
	btltest.Discard
	calls []string
}

func (p *poster) For(int) btl.Module { return p }
func (p *poster) Send(context.Context, int, []byte, []byte) error {
	p.calls = append(p.calls, "send")
	return nil
}
func (p *poster) Post(context.Context, int, []byte, []byte) error {
	p.calls = append(p.calls, "post")
	return nil
}
func (p *poster) Flush(peer int) { p.calls = append(p.calls, "flush") }

// A non-blocking send is posted, eager or its rendezvous announcement, and
// waiting on it flushes it once; a blocking send is sent at once.
func TestNonBlockingSendsArePosted(t *testing.T) {
	tr := &poster{}
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(tr)
	r := e.Isend(world, 1, 7, make([]byte, 8), false)
	if !r.Done() {
		t.Fatal("a posted eager send is not complete")
	}
	e.Wait(r)
	e.Wait(r) // a second wait has nothing left to flush
	if err := e.Send(world, 1, 7, make([]byte, 8), false); err != nil {
		t.Fatal(err)
	}
	e.Isend(world, 1, 7, make([]byte, 8), true) // synchronous: an RTS
	if want := []string{"post", "flush", "send", "post"}; !slices.Equal(tr.calls, want) {
		t.Fatalf("transport calls %v, want %v", tr.calls, want)
	}
}

// smallPoster also takes a posted header by value, recording each post.
type smallPoster struct {
	poster
	posts []posted
	limit int
}

type posted struct {
	peer     int
	hdr      header
	payload  string
	decodeOK bool
}

func (p *smallPoster) For(int) btl.Module { return p }
func (p *smallPoster) EagerLimit() int    { return p.limit }
func (p *smallPoster) PostSmall(peer int, hdr btl.SmallHeader, payload []byte) error {
	var b [btl.SmallHeaderSize]byte
	hdr.Put(b[:])
	h, err := decodeHeader(b[:])
	p.posts = append(p.posts, posted{peer, h, string(payload), err == nil})
	return nil
}

// PostEager posts an eager message with its header by value, and leaves
// to a request what it cannot: a message above the eager limit, a module
// without PostSmall, a job in which a peer has died.
func TestPostEager(t *testing.T) {
	tr := &smallPoster{limit: 8}
	e := New(3, hclog.NewNullLogger(), DefaultConfig())
	e.Start(tr)
	if sent, err := e.PostEager(5, 1, 7, []byte("eight by"), 42); !sent || err != nil {
		t.Fatalf("PostEager of 8 bytes, eager limit 8: sent %v, %v", sent, err)
	}
	want := posted{1, header{typ: typeMatch, context: 5, mark: 42, tag: 7}, "eight by", true}
	if len(tr.posts) != 1 || tr.posts[0] != want {
		t.Fatalf("posts %+v, want %+v", tr.posts, want)
	}
	if sent, err := e.PostEager(5, 1, 7, []byte("nine byte"), 43); sent || err != nil {
		t.Fatalf("PostEager of 9 bytes, eager limit 8: sent %v, %v", sent, err)
	}
	e.Flush(1)
	if len(tr.posts) != 1 || !slices.Equal(tr.calls, []string{"flush"}) {
		t.Fatalf("after a refused PostEager and a Flush: posts %+v, calls %v", tr.posts, tr.calls)
	}
	e.PeerFailed(2, errors.New("gone"))
	if sent, _ := e.PostEager(5, 1, 7, []byte("x"), 44); sent {
		t.Fatal("PostEager sent with a dead peer in the job: the request path checks the peer")
	}

	plain := New(0, hclog.NewNullLogger(), DefaultConfig())
	plain.Start(&poster{})
	if sent, _ := plain.PostEager(0, 1, 7, []byte("x"), 45); sent {
		t.Fatal("PostEager sent through a module without PostSmall")
	}
}
