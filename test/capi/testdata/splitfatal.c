/* Under the default handler, MPI_ERRORS_ARE_FATAL, a color of -1 at rank
 * 1 (negative, and not MPI_UNDEFINED) ends the job naming the color as the
 * program passed it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Comm c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 1 ? -1 : 0, rank, &c);
    printf("MPI_Comm_split returned\n");
    MPI_Finalize();
    return 0;
}
