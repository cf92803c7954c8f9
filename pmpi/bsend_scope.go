package pmpi

// A BufferScope is a set of communicators that share a buffer for their
// buffered sends: what MPI 4.1 calls a session's buffer, for bindings that
// have sessions. A group given the scope (Group.WithScope), the groups
// made from it, the communicators made from those and everything derived
// from them are in the scope. A buffered send on such a communicator uses
// its own buffer, else the scope's, else the process's.
type BufferScope struct {
	name string // for errors: "session 0x1000", say
}

// NewBufferScope makes a scope that errors call name.
func NewBufferScope(name string) *BufferScope { return &BufferScope{name: name} }

func (s *BufferScope) String() string { return s.name }

// WithScope returns g in scope s: communicators made from it through
// CommCreateGroup are in s.
func (g *Group) WithScope(s *BufferScope) *Group {
	out := *g
	out.scope = s
	return &out
}

// AttachBuffer attaches buf for the buffered sends of s's communicators
// that have no buffer of their own (MPI's Session_attach_buffer).
func (s *BufferScope) AttachBuffer(buf []byte) error {
	const op = "session attach buffer"
	l, err := running(op)
	if err != nil {
		return err
	}
	return l.bsends.attach(op, owner{scope: s}, buf)
}

// DetachBuffer waits until every message in s's buffer has gone,
// detaches it and returns it.
func (s *BufferScope) DetachBuffer() ([]byte, error) {
	const op = "session detach buffer"
	l, err := running(op)
	if err != nil {
		return nil, err
	}
	return l.bsends.detach(op, owner{scope: s}, l.engine)
}

// FlushBuffer waits until every message in s's buffer has gone.
func (s *BufferScope) FlushBuffer() error {
	l, err := running("session flush buffer")
	if err != nil {
		return err
	}
	l.bsends.flush(owner{scope: s}, l.engine)
	return nil
}

// IflushBuffer starts FlushBuffer; the request belongs to CommSelf.
func (s *BufferScope) IflushBuffer() (*Request, error) {
	const op = "session iflush buffer"
	l, err := running(op)
	if err != nil {
		return nil, err
	}
	return l.iflush(op, l.bsends.of(owner{scope: s}), l.self), nil
}

// End detaches s's buffer, if any, once its messages have gone: a
// session's finalize. After Finalize, which sent every buffer's
// messages, there is nothing to do.
func (s *BufferScope) End() {
	if l, err := running("session finalize"); err == nil {
		l.bsends.drop(owner{scope: s}, l.engine)
	}
}
