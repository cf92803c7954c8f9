package pmpi

// Rsend sends in ready mode: a correct program calls it only once the
// matching receive is posted. When the message finds no posted receive
// at rank dest, the receive that takes it later still gets it, with an
// ErrOther error saying so.
func (*realAPI) Rsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error {
	l, data, err := p2pArgs("rsend", buf, count, dt, dest, tag, comm, false)
	if err != nil || dest == ProcNull {
		return err
	}
	if dt.t.packs {
		return sendPacked("rsend", l, data, count, dt, dest, tag, comm, false, true)
	}
	if err := l.engine.SendReady(comm.context, comm.group[dest], tag, data); err != nil {
		r := Request{comm: comm, op: "rsend", peer: dest, tag: tag}
		return comm.handle(failure(r.desc(), err))
	}
	return nil
}

// Irsend starts a ready-mode send (Rsend).
func (*realAPI) Irsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	l, data, err := p2pArgs("irsend", buf, count, dt, dest, tag, comm, false)
	if err != nil {
		return nil, err
	}
	req := l.newRequest(comm, dt, "irsend", dest, tag, false)
	if dest != ProcNull {
		if dt.t.packs {
			data, req.conv = streamFor(dt.t, data, count)
		}
		if req.conv != nil {
			req.pml = l.engine.PostSendLayout(&req.pmlStore, comm.context, comm.group[dest], tag, req.conv, false, true, req.mark)
		} else {
			req.pml = l.engine.PostReady(&req.pmlStore, comm.context, comm.group[dest], tag, data, req.mark)
		}
	}
	return req, nil
}
