package pmpi

// launchInter starts a non-blocking or persistent collective on an
// intercommunicator: run goes to a goroutine, as a non-blocking call's
// algorithm does (nbc.go), on a context of its own between the groups and
// one on the bridge, so that calls outstanding together, and the blocking
// calls, keep apart; the bridge's collectives are those that may run side
// by side. s is how the call starts, apart from k, which prepare's
// closure holds: s stays on the caller's stack.
func (k *collCall) launchInter(s *collStart, run func(interRun) error) error {
	if j := s.restart; j != nil { // a persistent call's start, checked again
		j.k, j.run = *k, j.interRunner(run)
		return nil
	}
	b := k.comm.inter.bridge
	if c := max(k.comm.context, b.context); c >= nbcContexts {
		if k.convs != nil {
			k.unpackAll(false)
		}
		return k.fail(ClassComm, "its context id %d is not below %d, the most non-blocking collectives can tell apart (too many communicators alive)",
			c, nbcContexts)
	}
	if s.persistent {
		j := &nbcJob{k: *k}
		if err := k.goPersistent(s, j); err != nil {
			return err
		}
		j.run = j.interRunner(run) // before the request is returned, so before any start
		return nil
	}
	slot, j := k.comm.nbc.take(k.comm.lib.engine)
	j.k, j.slot = *k, slot
	j.cc = jobComm(k.comm, slot)
	j.run = j.interRunner(run)
	s.req = k.goRun(j, k.request())
	return nil
}

// interRunner runs run on j's slot: its context between the groups and
// the bridge's context of the same slot.
func (j *nbcJob) interRunner(run func(interRun) error) func() error {
	b := j.k.comm.inter.bridge
	r := interRun{x: j.cc, b: b, bm: b.colls.Concurrent(), bc: jobComm(b, j.slot), concurrent: true}
	return func() error { return run(r) }
}
