/* The default error handler, MPI_ERRORS_ARE_FATAL, ends the job: rank 0
 * sends to rank 7 of 2. The Go test expects the job to fail, saying why,
 * and what rank 0 printed first. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("rank 0 sends to rank 7"); /* no newline: stdout holds it */
        MPI_Send(&v, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
        printf("MPI_Send to rank 7 returned\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
