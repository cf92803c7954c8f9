package stats

import "github.com/gompi/gompi/pmpi"

// A partitioned send counts as a persistent one: each Start counts its
// bytes and one message; its Init, the receive's, and the calls on its
// partitions count their time.

func (m *module) PsendInit(buf []byte, partitions, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.PsendInit(buf, partitions, count, dt, dest, tag, comm)
	if err == nil && r != nil {
		m.persistent.Store(r, persistentSend{comm: comm, dest: dest, n: moved(partitions*count, dt, dest)})
	}
	if t0 >= 0 {
		m.end(fnPsendInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) PrecvInit(buf []byte, partitions, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.PrecvInit(buf, partitions, count, dt, source, tag, comm)
	if t0 >= 0 {
		m.end(fnPrecvInit, t0, 0, comm, -1)
	}
	return r, err
}

// timed counts the time of a call that moves nothing and names no
// communicator.
func (m *module) timed(f fn, call func() error) error {
	t0 := m.begin()
	err := call()
	if t0 >= 0 {
		m.end(f, t0, 0, nil, -1)
	}
	return err
}

func (m *module) Pready(partition int, r *pmpi.Request) error {
	return m.timed(fnPready, func() error { return m.Next.Pready(partition, r) })
}

func (m *module) PreadyRange(lo, hi int, r *pmpi.Request) error {
	return m.timed(fnPreadyRange, func() error { return m.Next.PreadyRange(lo, hi, r) })
}

func (m *module) PreadyList(partitions []int, r *pmpi.Request) error {
	return m.timed(fnPreadyList, func() error { return m.Next.PreadyList(partitions, r) })
}

func (m *module) Parrived(r *pmpi.Request, partition int) (bool, error) {
	var arrived bool
	err := m.timed(fnParrived, func() (err error) {
		arrived, err = m.Next.Parrived(r, partition)
		return err
	})
	return arrived, err
}
