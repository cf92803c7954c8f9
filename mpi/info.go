package mpi

import "github.com/gompi/gompi/pmpi"

// Info is an ordered set of string keys and values (MPI_Info); nil is
// MPI_INFO_NULL. Its methods are MPI_Info_set, _get_string, _delete,
// _get_nkeys, _get_nthkey, _dup and _free, each a call through the
// profiling tools: it is pmpi's Info under a type of this package, whose
// methods pmpi.API's Info calls are.
type Info pmpi.Info

// Limits of an Info's keys and values, in bytes.
const (
	MaxInfoKey = pmpi.MaxInfoKey
	MaxInfoVal = pmpi.MaxInfoVal
)

// p is i as pmpi's API takes it; a nil i stays nil.
func (i *Info) p() *pmpi.Info { return (*pmpi.Info)(i) }

// InfoCreate returns a new, empty Info (MPI_Info_create).
func InfoCreate() *Info { return (*Info)(api().InfoCreate()) }

// Set stores value under key, replacing any value it had (MPI_Info_set).
func (i *Info) Set(key, value string) error { return api().InfoSet(i.p(), key, value) }

// Get returns key's value and whether it has one (MPI_Info_get_string).
func (i *Info) Get(key string) (string, bool, error) { return api().InfoGet(i.p(), key) }

// Delete removes key; it fails with ErrInfoNokey if key has no value
// (MPI_Info_delete).
func (i *Info) Delete(key string) error { return api().InfoDelete(i.p(), key) }

// NKeys returns how many keys have a value (MPI_Info_get_nkeys).
func (i *Info) NKeys() (int, error) { return api().InfoGetNkeys(i.p()) }

// NthKey returns the n-th key, from 0, in the order keys were first set
// (MPI_Info_get_nthkey).
func (i *Info) NthKey(n int) (string, error) { return api().InfoGetNthkey(i.p(), n) }

// Dup returns a new Info with i's keys and values (MPI_Info_dup).
func (i *Info) Dup() (*Info, error) {
	d, err := api().InfoDup(i.p())
	return (*Info)(d), err
}

// Free releases i (MPI_Info_free): later calls with it fail.
func (i *Info) Free() error { return api().InfoFree(i.p()) }

// SetInfo sets c's hints from info (MPI_Comm_set_info). gompi recognises
// mpi_assert_no_any_source, mpi_assert_no_any_tag,
// mpi_assert_exact_length and mpi_assert_allow_overtaking ("true" or
// "false"). The first two make matching faster where many receives or
// messages wait, and a receive or probe that then names AnySource or
// AnyTag fails; the other two change nothing. Other keys are ignored.
func (c Comm) SetInfo(info *Info) error { return api().CommSetInfo(c.c, info.p()) }

// Info returns a new Info of c's hints in effect (MPI_Comm_get_info);
// the caller frees it.
func (c Comm) Info() (*Info, error) {
	info, err := api().CommGetInfo(c.c)
	return (*Info)(info), err
}
