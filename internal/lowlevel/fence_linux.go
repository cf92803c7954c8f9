package lowlevel

import "golang.org/x/sys/unix"

// membarrier(2) commands.
const (
	membarrierGlobalExpedited         = 1 << 1 // MEMBARRIER_CMD_GLOBAL_EXPEDITED
	membarrierRegisterGlobalExpedited = 1 << 4 // MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED
)

// JoinRemoteFences registers the process for RemoteFence: from then on,
// every RemoteFence of any process is a full memory barrier in each of
// its threads that runs at that moment. It fails where the kernel has no
// membarrier (before Linux 4.16) or a seccomp filter refuses it; the
// caller then keeps its own fences.
func JoinRemoteFences() error {
	_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierRegisterGlobalExpedited, 0, 0)
	return errnoErr(errno)
}

// RemoteFence runs a full memory barrier in every running thread of every
// process that joined (JoinRemoteFences), and returns once they all have:
// a store one of them made before is then seen by the caller's later
// loads, or the caller's earlier stores by that thread's later loads. It
// costs the caller a few microseconds and the others an interrupt.
func RemoteFence() error {
	_, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierGlobalExpedited, 0, 0)
	return errnoErr(errno)
}
