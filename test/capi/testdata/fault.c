/* A program's own faults end it as they end a C program, with gompi's C
 * library loaded and main run by gompicc's start archive: rank 1 faults
 * where FAULT says, in main or in a reduction operation the library
 * calls, while rank 0 waits for it; with FAULT=status every rank returns
 * 3 from main. The Go test expects the job to fail, saying how. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *volatile nowhere; /* NULL, read at run time: a store through it faults */

static void faulty(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)in, (void)inout, (void)len, (void)dt;
    *nowhere = 1;
}

int main(int argc, char **argv) {
    int rank, v = 1, sum;
    const char *where = getenv("FAULT");
    MPI_Op op;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (where == NULL) {
        fprintf(stderr, "FAULT is not set: main, op or status\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(where, "status") == 0) {
        MPI_Finalize();
        return 3;
    }
    MPI_Op_create(faulty, 1, &op);
    if (rank == 1 && strcmp(where, "main") == 0)
        *nowhere = 1;
    if (rank == 1 && strcmp(where, "op") == 0)
        MPI_Reduce_local(&v, &sum, 1, MPI_INT, op);
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d went on after the fault\n", rank);
    MPI_Finalize();
    return 0;
}
