/* Rank 0 prints, finalizes and kills itself: what it printed is out, as
 * MPI_Finalize writes out C's buffered stdout, and rank 1, past
 * MPI_Finalize too, ends as it would. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d %s", rank, rank == 0 ? "finalizes" : "ends"); /* no newline: stdout holds it */
    MPI_Finalize();
    if (rank == 0)
        kill(getpid(), SIGKILL);
    return 0;
}
