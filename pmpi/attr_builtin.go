package pmpi

// The predefined attributes of MPI 4.1 (section 9.1.2), read with
// CommGetAttr. MPI attaches them to MPI_COMM_WORLD; gompi answers them on
// every communicator, as MPICH does, since they describe the process and
// its job, not the communicator. They cannot be set, deleted or freed.
var (
	// AttrTagUB is MPI_TAG_UB: the largest tag a message may carry (an int).
	AttrTagUB = builtinKeyval("MPI_TAG_UB", func(*Comm) any { return TagUB })
	// AttrHost is MPI_HOST: the rank of the host process (an int). gompi
	// has none, so it is ProcNull, as MPI says it is then.
	AttrHost = builtinKeyval("MPI_HOST", func(*Comm) any { return ProcNull })
	// AttrIO is MPI_IO: a rank that can do I/O (an int). Every rank
	// can, so it is AnySource, as MPI says it is then.
	AttrIO = builtinKeyval("MPI_IO", func(*Comm) any { return AnySource })
	// AttrWtimeIsGlobal is MPI_WTIME_IS_GLOBAL (a bool): false, since
	// Wtime counts from the start of each process.
	AttrWtimeIsGlobal = builtinKeyval("MPI_WTIME_IS_GLOBAL", func(*Comm) any { return false })
	// AttrAppNum is MPI_APPNUM (an int): the index of this process's app
	// context on gompirun's MPMD command line, 0 for the first or only one
	// and for a singleton.
	AttrAppNum = builtinKeyval("MPI_APPNUM", func(c *Comm) any { return c.lib.job.AppNum })
	// AttrUniverseSize is MPI_UNIVERSE_SIZE (an int): how many processes
	// the job may have. gompi starts no processes after launch, so it is
	// the size of MPI_COMM_WORLD.
	AttrUniverseSize = builtinKeyval("MPI_UNIVERSE_SIZE", func(c *Comm) any { return c.lib.job.Size })
)

func builtinKeyval(name string, value func(*Comm) any) Keyval {
	kv := newKeyval(commAttr, nil)
	kv.k.name, kv.k.builtin = name, value
	kv.k.commCopy, kv.k.commDel = CommNullCopyFn, CommNullDeleteFn
	return kv
}
