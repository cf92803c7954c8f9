// Package node runs one host's ranks of a job: it resolves their
// programs, binds them to CPUs, gives them their identity (package
// jobenv), makes the job's session directory, starts them with their
// lifeline and signals their process groups. gompirun (package launcher)
// uses it for the ranks of its own host; the daemon (RunDaemon, the
// gompi-daemon program) uses it on every other host, where it talks to
// gompirun over the wire of wire.go.
//
// It links no gRPC and no MCA: the daemon starts on every host of every
// launch, and a program that links the standard library alone starts in
// a fraction of the time of one that links those.
package node
