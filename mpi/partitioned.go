package mpi

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// PsendInit makes a partitioned send of buf to rank dest of comm (MPI 4's
// MPI_Psend_init): buf is cut into partitions parts of equal length, and
// after each Start the program marks them ready with Pready, from any
// goroutine and in any order; each goes as it is marked. Wait completes
// the round once every part has gone. The receiver may cut the same
// elements into other parts. It lives until Free.
func PsendInit[T Elem](buf []T, partitions, dest, tag int, comm Comm) (Request, error) {
	n, err := partLen("psend init", len(buf), partitions)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().PsendInit(pmpi.Bytes(buf), partitions, n, pmpi.TypeOf[T](), dest, tag, comm.c))
}

// PrecvInit makes a partitioned receive into buf from rank source of
// comm with tag (neither a wildcard), cut into partitions parts of equal
// length: after each Start, Parrived tells which parts have arrived, and
// Wait completes the round once all have.
func PrecvInit[T Elem](buf []T, partitions, source, tag int, comm Comm) (Request, error) {
	n, err := partLen("precv init", len(buf), partitions)
	if err != nil {
		return Request{}, err
	}
	return persistent(api().PrecvInit(pmpi.Bytes(buf), partitions, n, pmpi.TypeOf[T](), source, tag, comm.c))
}

// partLen is the length of each of partitions equal parts of n elements.
func partLen(op string, n, partitions int) (int, error) {
	switch {
	case partitions < 0:
		return 0, &pmpi.Error{Class: pmpi.ClassCount, Msg: fmt.Sprintf("%s: %d partitions (0 or more)", op, partitions)}
	case partitions == 0 && n == 0:
		return 0, nil
	case partitions == 0 || n%partitions != 0:
		return 0, &pmpi.Error{Class: pmpi.ClassCount, Msg: fmt.Sprintf("%s: %d elements do not cut into %d partitions of equal length", op, n, partitions)}
	}
	return n / partitions, nil
}

// Pready marks partition p of a started partitioned send ready: it is
// sent.
func (r Request) Pready(p int) error { return api().Pready(p, r.r) }

// PreadyRange marks partitions lo to hi, both included, ready.
func (r Request) PreadyRange(lo, hi int) error { return api().PreadyRange(lo, hi, r.r) }

// PreadyList marks the listed partitions ready.
func (r Request) PreadyList(partitions ...int) error { return api().PreadyList(partitions, r.r) }

// Parrived reports whether partition p of a started partitioned receive
// has arrived, without waiting. On the zero Request, as on an inactive
// one, it reports true.
func (r Request) Parrived(p int) (bool, error) {
	if r.r == nil {
		return true, nil
	}
	return api().Parrived(r.r, p)
}
