package mpi

import "github.com/gompi/gompi/pmpi"

// Info is an ordered set of string keys and values (MPI_Info); nil is
// MPI_INFO_NULL. Its methods are MPI_Info_set, _get_string, _delete,
// _get_nkeys, _get_nthkey, _dup and _free.
type Info = pmpi.Info

// Limits of an Info's keys and values, in bytes.
const (
	MaxInfoKey = pmpi.MaxInfoKey
	MaxInfoVal = pmpi.MaxInfoVal
)

// InfoCreate returns a new, empty Info (MPI_Info_create).
func InfoCreate() *Info { return pmpi.InfoCreate() }

// SetInfo sets c's hints from info (MPI_Comm_set_info). gompi recognises
// mpi_assert_no_any_source, mpi_assert_no_any_tag,
// mpi_assert_exact_length and mpi_assert_allow_overtaking ("true" or
// "false"). The first two make matching faster where many receives or
// messages wait, and a receive or probe that then names AnySource or
// AnyTag fails; the other two change nothing. Other keys are ignored.
func (c Comm) SetInfo(info *Info) error { return api().CommSetInfo(c.c, info) }

// Info returns a new Info of c's hints in effect (MPI_Comm_get_info);
// the caller frees it.
func (c Comm) Info() (*Info, error) { return api().CommGetInfo(c.c) }
