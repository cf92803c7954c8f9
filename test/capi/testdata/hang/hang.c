/* hang: both ranks receive first, a deadlock, for gompirun's state report
 * to explain. Not a self-checking program: TestStateReport runs it. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
