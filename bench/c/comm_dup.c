/* The C twin of gompi-bench comm-dup: each rank times
 * MPI_Comm_dup of the world and MPI_Comm_free, in a loop (comm.h).
 *
 *   mpirun -np 4 --oversubscribe ./comm_dup -i 1000 -x 200 -f
 */
#include "comm.h"

static const struct measurement comm_dup = COMM_MEASUREMENT("comm-dup", "Dup of the world and Free");

static void make(MPI_Comm *c) {
    MPI_Comm_dup(MPI_COMM_WORLD, c);
}

int main(int argc, char **argv) { return comm_main(&comm_dup, make, argc, argv); }
