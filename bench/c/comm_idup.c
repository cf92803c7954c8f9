/* The C twin of gompi-bench comm-idup: each rank times
 * MPI_Comm_idup of the world, its MPI_Wait and MPI_Comm_free, in a loop (comm.h).
 *
 *   mpirun -np 4 --oversubscribe ./comm_idup -i 1000 -x 200 -f
 */
#include "comm.h"

static const struct measurement comm_idup = COMM_MEASUREMENT("comm-idup", "Idup of the world, its Wait, and Free");

static void make(MPI_Comm *c) {
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, c, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) { return comm_main(&comm_idup, make, argc, argv); }
