package pmpi

import "github.com/gompi/gompi/internal/pml"

// Status describes a received or probed message.
type Status struct {
	Source    int   // the sender's rank in the communicator
	Tag       int   //
	Count     int   // elements received, in the receive's datatype; Undefined for a probe (see CountOf) or a partial element (see GetElements)
	Cancelled bool  // the receive was cancelled
	Err       error // the receive's error, as returned
	bytes     int
}

// CountOf returns how many elements of dt the message holds, after a
// receive or a probe alike: Undefined if they are not a whole number.
func (s Status) CountOf(dt Datatype) int {
	if dt.t == nil {
		return Undefined
	}
	return dt.countOf(s.bytes)
}

// statusOf translates the engine's status to the communicator's ranks.
func statusOf(c *Comm, st pml.Status, dt Datatype) Status {
	var s Status
	statusInto(&s, c, &st, dt)
	return s
}

// statusInto is statusOf writing into dst field by field: WaitAll's
// statuses, where building a Status and copying it spent a tenth of an
// incast's rank 0 in the compiler's zeroing of the temporaries.
func statusInto(dst *Status, c *Comm, st *pml.Status, dt Datatype) {
	src, ok := c.rankOf(st.Source)
	if !ok {
		src = st.Source
	}
	dst.Source, dst.Tag, dst.Count, dst.Cancelled, dst.Err, dst.bytes = src, st.Tag, dt.countOf(st.Bytes), st.Cancelled, nil, st.Bytes
}

func nullStatus() Status { return Status{Source: ProcNull, Tag: AnyTag} }

// EmptyStatus is MPI's status of an inactive request (MPI_REQUEST_NULL, or
// one already completed): any source, any tag, nothing received.
func EmptyStatus() Status { return Status{Source: AnySource, Tag: AnyTag} }

// Bytes is the size of the message in bytes. A binding that keeps
// statuses in its own form (the C library's MPI_Status) stores it, and
// gives it back with SetBytes for CountOf and GetElements.
func (s Status) Bytes() int { return s.bytes }

// SetBytes sets the size of the message in bytes: see Bytes.
func (s *Status) SetBytes(n int) { s.bytes = n }
