package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

// The large-count (_c) constructors build the same types as their int
// twins, and record that their counts were MPI_Count: the _c decoders
// then return them as large counts, as MPI says.

func mpiTypeContiguousC(count int, old Datatype, out *Datatype) error {
	return large(mpiTypeContiguous(count, old, out), out)
}

func mpiTypeVectorC(count, blocklen, stride int, old Datatype, out *Datatype) error {
	return large(mpiTypeVector(count, blocklen, stride, old, out), out)
}

func mpiTypeCreateHvectorC(count, blocklen, stride int, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateHvector(count, blocklen, stride, old, out), out)
}

func mpiTypeIndexedC(count int, blocklens, displs *C.int64_t, old Datatype, out *Datatype) error {
	return large(mpiTypeIndexed(count, blocklens, displs, old, out), out)
}

func mpiTypeCreateHindexedC(count int, blocklens, displs *C.int64_t, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateHindexed(count, blocklens, displs, old, out), out)
}

func mpiTypeCreateIndexedBlockC(count, blocklen int, displs *C.int64_t, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateIndexedBlock(count, blocklen, displs, old, out), out)
}

func mpiTypeCreateHindexedBlockC(count, blocklen int, displs *C.int64_t, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateHindexedBlock(count, blocklen, displs, old, out), out)
}

func mpiTypeCreateStructC(count int, blocklens, displs *C.int64_t, types *Datatype, out *Datatype) error {
	return large(mpiTypeCreateStruct(count, blocklens, displs, types, out), out)
}

func mpiTypeCreateSubarrayC(ndims int, sizes, subsizes, starts *C.int64_t, order int, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateSubarray(ndims, sizes, subsizes, starts, order, old, out), out)
}

func mpiTypeCreateDarrayC(size, rank, ndims int, gsizes *C.int64_t, distribs, dargs, psizes *C.int, order int, old Datatype, out *Datatype) error {
	return large(mpiTypeCreateDarray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out), out)
}

func mpiTypeCreateResizedC(old Datatype, lb, extent int, out *Datatype) error {
	return large(mpiTypeCreateResized(old, lb, extent, out), out)
}

// large marks the type a _c constructor made in *out, unless it failed.
func large(err error, out *Datatype) error {
	if err != nil {
		return err
	}
	if e := lib.types.get(uintptr(*out)); e != nil && e.recipe != nil {
		e.recipe.large = true
	}
	return nil
}

// args is the recipe's arguments as the _c decoders give them: a _c
// constructor's MPI_Count arguments among the large counts, in the
// standard's order, and the int forms' integers and addresses
// otherwise.
func (r *recipe) args() (ints, addrs, counts []int) {
	if !r.large {
		return r.ints, r.addrs, nil
	}
	switch r.combiner {
	case C.MPI_COMBINER_SUBARRAY:
		// ndims, sizes, subsizes, starts, order: the arrays are counts.
		n := r.ints[0]
		return []int{n, r.ints[len(r.ints)-1]}, nil, r.ints[1 : 1+3*n]
	case C.MPI_COMBINER_DARRAY:
		// size, rank, ndims, gsizes, distribs, dargs, psizes, order:
		// gsizes are counts.
		n := r.ints[2]
		return append(r.ints[:3:3], r.ints[3+n:]...), nil, r.ints[3 : 3+n]
	}
	// Every other constructor's counts, strides, displacements and
	// bounds are MPI_Count in its _c form.
	return nil, nil, append(append([]int{}, r.ints...), r.addrs...)
}
