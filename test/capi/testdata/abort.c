/* MPI_Abort ends the job with its code: rank 0 prints a line and tells
 * rank 1, which prints part of one and aborts while rank 0 waits for a
 * message that never comes. The Go test expects the job to fail, saying
 * so, with both: rank 0's line because under gompirun a rank's stdout goes
 * line by line, rank 1's part because MPI_Abort writes out what stdout
 * holds. With ABORT_EARLY set, each rank aborts before MPI_Init instead,
 * with code 4. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, v = 0;
    if (getenv("ABORT_EARLY") != NULL) {
        printf("rank ? aborts early"); /* no newline: stdout holds it */
        MPI_Abort(MPI_COMM_WORLD, 4);
        printf("MPI_Abort returned before MPI_Init\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("rank 0 waits\n");
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 1 aborts"); /* no newline: stdout holds it */
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("rank %d went on after MPI_Abort\n", rank);
    MPI_Finalize();
    return 0;
}
