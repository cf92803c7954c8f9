/* hang: both ranks receive first, a deadlock, for gompirun's state report
 * to explain; with the argument "finalize", rank 0 goes to MPI_Finalize
 * instead. Not a self-checking program: TestStateReport runs it. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1 || argc < 2 || strcmp(argv[1], "finalize") != 0)
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
