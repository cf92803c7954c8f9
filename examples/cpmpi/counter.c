/* counter.c: a PMPI tool that counts a C program's MPI calls, in the style
 * of the MPI standard's profiling-interface examples. Each MPI_X below
 * takes the place of libmpi_abi's weak MPI_X (linked ahead of -lmpi_abi or
 * preloaded), counts the call and calls the library's PMPI_X.
 *
 * MPI_Pcontrol drives the counting and is not counted itself: level 0
 * stops it, 1 resumes it (the state at start), 2 sets every counter back to
 * zero. Every level is passed on to PMPI_Pcontrol, so that the tools below
 * (gompi's --mca prof stack) see it too.
 *
 * At MPI_Finalize each rank prints one line per function, zeros included:
 *     cpmpi rank <rank>: <function> <calls> calls <bytes> bytes
 * Bytes are those of the sends (count times the datatype's size); the
 * other functions report 0. */
#include <stdatomic.h>
#include <stdio.h>

#include <mpi.h>

enum {
    F_INIT,
    F_INIT_THREAD,
    F_FINALIZE,
    F_SEND,
    F_RECV,
    F_ISEND,
    F_IRECV,
    F_WAIT,
    F_WAITALL,
    F_BARRIER,
    F_BCAST,
    F_ALLREDUCE,
    F_REDUCE,
    NFUNCS
};

static const char *const names[NFUNCS] = {
    "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Send",    "MPI_Recv",      "MPI_Isend", "MPI_Irecv",
    "MPI_Wait", "MPI_Waitall",     "MPI_Barrier",  "MPI_Bcast",   "MPI_Allreduce", "MPI_Reduce",
};

/* Atomic, since a program that asked for MPI_THREAD_MULTIPLE may call MPI
 * from several threads at once. */
static atomic_int counting = 1;
static atomic_llong calls[NFUNCS];
static atomic_llong bytes[NFUNCS];

static int on(void) { return atomic_load_explicit(&counting, memory_order_relaxed); }

static void tally(int f) {
    if (on())
        atomic_fetch_add_explicit(&calls[f], 1, memory_order_relaxed);
}

/* tally_send counts a send of n elements of dt. The datatype's size
 * is asked for only while counting, so that a stopped tool makes no call
 * of its own. */
static void tally_send(int f, int n, MPI_Datatype dt) {
    int size;
    if (!on())
        return;
    atomic_fetch_add_explicit(&calls[f], 1, memory_order_relaxed);
    if (PMPI_Type_size(dt, &size) == MPI_SUCCESS)
        atomic_fetch_add_explicit(&bytes[f], (long long)n * size, memory_order_relaxed);
}

int MPI_Pcontrol(const int level, ...) {
    switch (level) {
    case 0:
        atomic_store(&counting, 0);
        break;
    case 1:
        atomic_store(&counting, 1);
        break;
    case 2:
        for (int f = 0; f < NFUNCS; f++) {
            atomic_store(&calls[f], 0);
            atomic_store(&bytes[f], 0);
        }
        break;
    }
    return PMPI_Pcontrol(level);
}

int MPI_Init(int *argc, char ***argv) {
    tally(F_INIT);
    return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    tally(F_INIT_THREAD);
    return PMPI_Init_thread(argc, argv, required, provided);
}

/* MPI_Finalize prints the report while MPI still works, in one write so
 * that the ranks' lines do not interleave. */
int MPI_Finalize(void) {
    char report[NFUNCS * 96];
    int rank = -1, n = 0;
    tally(F_FINALIZE);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int f = 0; f < NFUNCS; f++)
        n += snprintf(report + n, sizeof report - n, "cpmpi rank %d: %s %lld calls %lld bytes\n", rank, names[f],
                      atomic_load(&calls[f]), atomic_load(&bytes[f]));
    fputs(report, stdout);
    fflush(stdout);
    return PMPI_Finalize();
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    tally_send(F_SEND, count, datatype);
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    tally(F_RECV);
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    tally_send(F_ISEND, count, datatype);
    return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    tally(F_IRECV);
    return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    tally(F_WAIT);
    return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses) {
    tally(F_WAITALL);
    return PMPI_Waitall(count, array_of_requests, array_of_statuses);
}

int MPI_Barrier(MPI_Comm comm) {
    tally(F_BARRIER);
    return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    tally(F_BCAST);
    return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    tally(F_ALLREDUCE);
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
    tally(F_REDUCE);
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
