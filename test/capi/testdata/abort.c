/* MPI_Abort ends the job with its code: rank 1 aborts while rank 0
 * waits for a message that never comes. The Go test expects the job to
 * fail, saying so, and what rank 1 printed first. With ABORT_EARLY set,
 * each rank aborts before MPI_Init instead, with code 4. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, v;
    if (getenv("ABORT_EARLY") != NULL) {
        printf("rank ? aborts early\n"); /* buffered: stdout is a pipe */
        MPI_Abort(MPI_COMM_WORLD, 4);
        printf("MPI_Abort returned before MPI_Init\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        printf("rank 1 aborts\n"); /* buffered: stdout is a pipe */
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d went on after MPI_Abort\n", rank);
    MPI_Finalize();
    return 0;
}
