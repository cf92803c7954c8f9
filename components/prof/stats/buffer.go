package stats

import "github.com/gompi/gompi/pmpi"

// The buffer calls count their time: detaching and flushing wait for
// the buffered messages to leave.

func (m *module) BufferAttach(buf []byte) error {
	return m.timed(fnBufferAttach, func() error { return m.Next.BufferAttach(buf) })
}

func (m *module) BufferDetach() ([]byte, error) {
	var buf []byte
	err := m.timed(fnBufferDetach, func() (err error) {
		buf, err = m.Next.BufferDetach()
		return err
	})
	return buf, err
}

func (m *module) BufferFlush() error {
	return m.timed(fnBufferFlush, m.Next.BufferFlush)
}

func (m *module) BufferIflush() (*pmpi.Request, error) {
	var r *pmpi.Request
	err := m.timed(fnBufferIflush, func() (err error) {
		r, err = m.Next.BufferIflush()
		return err
	})
	return r, err
}

// onComm counts the time of a call on comm that moves nothing.
func (m *module) onComm(f fn, comm *pmpi.Comm, call func() error) error {
	t0 := m.begin()
	err := call()
	if t0 >= 0 {
		m.end(f, t0, 0, comm, -1)
	}
	return err
}

func (m *module) CommAttachBuffer(comm *pmpi.Comm, buf []byte) error {
	return m.onComm(fnCommAttachBuffer, comm, func() error { return m.Next.CommAttachBuffer(comm, buf) })
}

func (m *module) CommDetachBuffer(comm *pmpi.Comm) ([]byte, error) {
	var buf []byte
	err := m.onComm(fnCommDetachBuffer, comm, func() (err error) {
		buf, err = m.Next.CommDetachBuffer(comm)
		return err
	})
	return buf, err
}

func (m *module) CommBufferFlush(comm *pmpi.Comm) error {
	return m.onComm(fnCommBufferFlush, comm, func() error { return m.Next.CommBufferFlush(comm) })
}

func (m *module) CommBufferIflush(comm *pmpi.Comm) (*pmpi.Request, error) {
	var r *pmpi.Request
	err := m.onComm(fnCommBufferIflush, comm, func() (err error) {
		r, err = m.Next.CommBufferIflush(comm)
		return err
	})
	return r, err
}
