package pmpi

// WorkAside reports whether comm's rank counts work running in goroutines
// beside the caller's, to which its waiters yield at every poll.
func WorkAside(comm *Comm) bool { return comm.lib.engine.Aside() }
