/* MPI as a singleton: started without gompirun, the program is the one
 * rank of MPI_COMM_WORLD, and talks to itself. */
#include "check.h"

int main(int argc, char **argv) {
    start(&argc, &argv);
    int level = -1;
    TRY(MPI_Query_thread(&level));
    EQ(level, MPI_THREAD_SINGLE, "MPI_Query_thread after MPI_Init");
    int size = -1, out[4] = {1, 2, 3, 4}, in[4] = {0}, sum[4] = {0};
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    EQ(size, 1, "the size of MPI_COMM_WORLD");
    EQ(check_rank, 0, "the rank in MPI_COMM_WORLD");
    MPI_Status st;
    TRY(MPI_Sendrecv(out, 4, MPI_INT, 0, 5, in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5 && memcmp(in, out, sizeof in) == 0, "a message to itself");
    TRY(MPI_Allreduce(out, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(memcmp(sum, out, sizeof sum) == 0, "MPI_Allreduce on one rank");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    passed("singleton");
    TRY(MPI_Finalize());
    return 0;
}
