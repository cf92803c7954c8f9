/* The C twin of gompi-bench init-finalize: MPI_Init and MPI_Finalize only,
 * what gompi-bench launch times when given a launcher command:
 *
 *   gompi-bench launch -n 2,4 -- mpirun -np {np} ./init_finalize
 */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
