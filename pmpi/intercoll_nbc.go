package pmpi

// launchInter starts a non-blocking collective on an intercommunicator:
// run goes to a goroutine, as a non-blocking call's algorithm does
// (nbc.go), on a context of its own between the groups and one on the
// bridge, so that calls outstanding together, and the blocking calls, keep
// apart; the bridge's collectives are those that may run side by side.
func (k *collCall) launchInter(run func(interRun) error) error {
	if k.start.persistent {
		if k.convs != nil {
			k.unpackAll(false)
		}
		return k.fail(ClassComm, "persistent collectives on an intercommunicator are not supported by gompi; use the non-blocking or blocking form, or merge it with IntercommMerge")
	}
	b := k.comm.inter.bridge
	if c := max(k.comm.context, b.context); c >= nbcContexts {
		if k.convs != nil {
			k.unpackAll(false)
		}
		return k.fail(ClassComm, "its context id %d is not below %d, the most non-blocking collectives can tell apart (too many communicators alive)",
			c, nbcContexts)
	}
	slot, j := k.comm.nbc.take()
	j.k, j.slot = *k, slot
	j.cc = collComm{c: k.comm, ctx: nbcContext(k.comm, slot)}
	r := interRun{x: j.cc, b: b, bm: b.colls.Concurrent(), bc: collComm{c: b, ctx: nbcContext(b, slot)}, concurrent: true}
	j.run = func() error { return run(r) }
	k.start.req = k.goRun(j)
	return nil
}
