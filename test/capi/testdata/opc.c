/* MPI_Op_create_c: the library calls an MPI_User_function_c with an
 * MPI_Count length. */
#include "check.h"

static int wrong_type;

/* add_c adds pairs of ints, *len of them. */
static void add_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *dt) {
    int *in = invec, *io = inoutvec;
    if (*dt != MPI_INT)
        wrong_type++;
    for (MPI_Count i = 0; i < *len; i++)
        io[i] += in[i];
}

#define N 1000

int main(int argc, char **argv) {
    start(&argc, &argv);
    int rank = check_rank, size;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Op op;
    TRY(MPI_Op_create_c(add_c, 1, &op));
    static int in[N], out[N];
    for (int n = 1; n <= N; n *= 10) {
        for (int i = 0; i < n; i++)
            in[i] = rank + i;
        TRY(MPI_Allreduce_c(in, out, n, MPI_INT, op, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            EQ(out[i], size * (size - 1) / 2 + size * i, "MPI_Allreduce_c with an MPI_Op_create_c operation");
    }
    EQ(wrong_type, 0, "calls with another datatype than MPI_INT");
    TRY(MPI_Op_free(&op));
    passed("op_create_c");
    TRY(MPI_Finalize());
    return 0;
}
