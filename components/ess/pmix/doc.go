// Package pmix is the ess component of processes that a PMIx server
// started without gompirun: Slurm's srun --mpi=pmix, or Open MPI's mpirun
// and prterun. It links OpenPMIx (cgo, Debian's libpmix-dev), so it is
// built only with the pmix build tag (go build -tags pmix), which keeps
// the default build pure Go; a program built without it that a PMIx
// server starts stops in Init, saying so (ess singleton). PMIx's wire
// protocol is internal to the library and changes between its versions,
// so the library is the only stable interface.
package pmix
