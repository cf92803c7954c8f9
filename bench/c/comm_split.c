/* The C twin of gompi-bench comm-split: each rank times
 * MPI_Comm_split of the world into one colour and MPI_Comm_free, in a loop (comm.h).
 *
 *   mpirun -np 4 --oversubscribe ./comm_split -i 1000 -x 200 -f
 */
#include "comm.h"

static const struct measurement comm_split = COMM_MEASUREMENT("comm-split", "Split of the world, one colour, and Free");

static void make(MPI_Comm *c) {
    MPI_Comm_split(MPI_COMM_WORLD, 0, bench_rank(), c);
}

int main(int argc, char **argv) { return comm_main(&comm_split, make, argc, argv); }
