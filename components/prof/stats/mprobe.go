package stats

import "github.com/gompi/gompi/pmpi"

// The matched probes count their time only; the matched receives count as
// Recv and Irecv do: the bytes received, or those of the posted buffer.

func (m *module) Mprobe(source, tag int, comm *pmpi.Comm) (pmpi.Message, pmpi.Status, error) {
	t0 := m.begin()
	msg, st, err := m.Next.Mprobe(source, tag, comm)
	if t0 >= 0 {
		m.end(fnMprobe, t0, 0, comm, -1)
	}
	return msg, st, err
}

func (m *module) Improbe(source, tag int, comm *pmpi.Comm) (pmpi.Message, pmpi.Status, bool, error) {
	t0 := m.begin()
	msg, st, ok, err := m.Next.Improbe(source, tag, comm)
	if t0 >= 0 {
		m.end(fnImprobe, t0, 0, comm, -1)
	}
	return msg, st, ok, err
}

func (m *module) Mrecv(buf []byte, count int, dt pmpi.Datatype, msg *pmpi.Message) (pmpi.Status, error) {
	comm := messageComm(msg)
	t0 := m.begin()
	st, err := m.Next.Mrecv(buf, count, dt, msg)
	if t0 >= 0 {
		n := int64(0)
		if st.Source != pmpi.ProcNull {
			n = int64(st.CountOf(pmpi.Byte))
		}
		m.end(fnMrecv, t0, n, comm, -1)
	}
	return st, err
}

func (m *module) Imrecv(buf []byte, count int, dt pmpi.Datatype, msg *pmpi.Message) (*pmpi.Request, error) {
	noProc := msg != nil && *msg == pmpi.MessageNoProc
	comm := messageComm(msg)
	t0 := m.begin()
	r, err := m.Next.Imrecv(buf, count, dt, msg)
	if t0 >= 0 {
		n := int64(0)
		if !noProc && err == nil {
			n = size(count, dt)
		}
		m.end(fnImrecv, t0, n, comm, -1)
	}
	return r, err
}

// messageComm is the communicator msg came on, read before the receive
// makes it MessageNull; nil for none.
func messageComm(msg *pmpi.Message) *pmpi.Comm {
	if msg == nil {
		return nil
	}
	return msg.Comm()
}
