/* MPI_Test, MPI_Testany, MPI_Testall, MPI_Testsome and MPI_Iprobe in C,
 * in front of their Go implementations (gate.h): a loop that tests
 * pending requests or probes for a message that has not come costs a few
 * loads a round instead of a call into Go. MPI_Comm_rank and
 * MPI_Comm_size of the predefined communicators too. */
#include <stddef.h>
#include "include/mpi.h"
#include "caller.h"
#include "gate.h"

/* GOMPI_GO returns call, which enters Go, unless the call is nested
 * (signal.c). */
#define GOMPI_GO(fn, call)                                                                         \
    do {                                                                                           \
        if (__builtin_expect(gompi_nested, 0))                                                     \
            gompi_nested_call(fn);                                                                 \
        return call;                                                                               \
    } while (0)

struct gompi_gate gompi_gate;
struct gompi_world gompi_world;

int gompi_go_PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int gompi_go_PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status);
int gompi_go_PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int gompi_go_PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]);
int gompi_go_PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[]);
int gompi_go_PMPI_Comm_rank(MPI_Comm comm, int *rank);
int gompi_go_PMPI_Comm_size(MPI_Comm comm, int *size);

/* unmoved reports whether every watched word keeps its value. */
static int unmoved(void) {
    for (int i = 0; i < gompi_gate.nwords; i++)
        if (__atomic_load_n(gompi_gate.word[i], __ATOMIC_ACQUIRE) != gompi_gate.value[i])
            return 0;
    return 1;
}

/* holds reports whether the gate is armed, no watched word moved, and of
 * the n requests, one at least is one it was armed with, and, unless any
 * is set, every other is too or is MPI_REQUEST_NULL. */
static int holds(const MPI_Request *reqs, int n, int any) {
    if (!__atomic_load_n(&gompi_gate.armed, __ATOMIC_ACQUIRE))
        return 0;
    int some = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t h = (uintptr_t)reqs[i];
        int known = 0;
        for (int j = 0; j < gompi_gate.nreqs && !known; j++)
            known = gompi_gate.req[j] == h;
        if (known)
            some = 1;
        else if (!any && h != (uintptr_t)MPI_REQUEST_NULL)
            return 0;
    }
    return some && unmoved();
}

/* each says whether count requests at reqs are few enough for the gate. */
static int each(int count, const MPI_Request *reqs) { return count > 0 && count <= GOMPI_GATE_REQS && reqs != NULL; }

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    if (request != NULL && flag != NULL && holds(request, 1, 0)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    GOMPI_GO("MPI_Test", gompi_go_PMPI_Test(request, flag, status));
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status) {
    if (each(count, array_of_requests) && indx != NULL && flag != NULL && holds(array_of_requests, count, 0)) {
        *flag = 0;
        *indx = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    GOMPI_GO("MPI_Testany", gompi_go_PMPI_Testany(count, array_of_requests, indx, flag, status));
}

/* Testall is false while one request it was armed with is pending. */
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
    if (each(count, array_of_requests) && flag != NULL && holds(array_of_requests, count, 1)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    GOMPI_GO("MPI_Testall", gompi_go_PMPI_Testall(count, array_of_requests, flag, array_of_statuses));
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
    if (each(incount, array_of_requests) && outcount != NULL && holds(array_of_requests, incount, 0)) {
        *outcount = 0;
        return MPI_SUCCESS;
    }
    GOMPI_GO("MPI_Testsome",
             gompi_go_PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
}

/* Iprobe finds nothing while the probe the gate was armed with would not. */
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    if (flag != NULL && __atomic_load_n(&gompi_gate.armed, __ATOMIC_ACQUIRE) && gompi_gate.probing &&
        gompi_gate.probe_source == source && gompi_gate.probe_tag == tag && gompi_gate.probe_comm == (uintptr_t)comm &&
        unmoved()) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    GOMPI_GO("MPI_Iprobe", gompi_go_PMPI_Iprobe(source, tag, comm, flag, status));
}

/* predefined answers a question about MPI_COMM_WORLD or MPI_COMM_SELF,
 * the size if size is set, else the rank, into out, once the library
 * knows them (gate.h); it reports whether it did. */
static int predefined(MPI_Comm comm, int *out, int size) {
    if (out == NULL || !__atomic_load_n(&gompi_world.known, __ATOMIC_ACQUIRE))
        return 0;
    if (comm == MPI_COMM_WORLD)
        *out = size ? gompi_world.size : gompi_world.rank;
    else if (comm == MPI_COMM_SELF)
        *out = size ? 1 : 0;
    else
        return 0;
    return 1;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank) {
    if (predefined(comm, rank, 0))
        return MPI_SUCCESS;
    GOMPI_GO("MPI_Comm_rank", gompi_go_PMPI_Comm_rank(comm, rank));
}

int PMPI_Comm_size(MPI_Comm comm, int *size) {
    if (predefined(comm, size, 1))
        return MPI_SUCCESS;
    GOMPI_GO("MPI_Comm_size", gompi_go_PMPI_Comm_size(comm, size));
}
