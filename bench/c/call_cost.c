/* What a call costs on one rank, the C twin of bench/cmd/call-cost: a loop
 * of MPI_Comm_rank, of an 8-byte MPI_Irecv, MPI_Isend and MPI_Waitall to
 * itself on MPI_COMM_SELF, of an MPI_Allreduce of one double on
 * MPI_COMM_SELF, of an MPI_Test of a receive that no message matches and
 * of an MPI_Iprobe that finds nothing, and of making, committing and
 * freeing a datatype (a vector of 64 doubles 8 apart; a struct of an int,
 * two doubles and an int64_t); nanoseconds a round of each.
 *
 *   gompicc -O2 -o call_cost bench/c/call_cost.c && ./call_cost [rounds]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double exchange(int n, double *s, double *r) {
    MPI_Request rq[2];
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Irecv(r, 1, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, &rq[0]);
        MPI_Isend(s, 1, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    return (MPI_Wtime() - t) / n * 1e9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (n < 1) {
        fprintf(stderr, "call_cost: rounds must be 1 or more, not %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double s = 8, r = 0;
    exchange(n / 100 + 1, &s, &r); /* warm-up */
    double x = exchange(n, &s, &r);
    int rank;
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* a library call: never elided */
    double y = (MPI_Wtime() - t) / n * 1e9;
    t = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    double z = (MPI_Wtime() - t) / n * 1e9;
    MPI_Request rq;
    MPI_Irecv(&r, 1, MPI_DOUBLE, 0, 2, MPI_COMM_SELF, &rq);
    int flag = 0;
    t = MPI_Wtime();
    for (int i = 0; i < n && !flag; i++)
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    double p = (MPI_Wtime() - t) / n * 1e9;
    if (flag) {
        fprintf(stderr, "call_cost: a receive that no message matches completed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Cancel(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    t = MPI_Wtime();
    for (int i = 0; i < n && !flag; i++)
        MPI_Iprobe(0, 3, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    double q = (MPI_Wtime() - t) / n * 1e9;
    if (flag) {
        fprintf(stderr, "call_cost: a probe found a message that nobody sent\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Datatype dt;
    t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Type_vector(64, 1, 8, MPI_DOUBLE, &dt);
        MPI_Type_commit(&dt);
        MPI_Type_free(&dt);
    }
    double v = (MPI_Wtime() - t) / n * 1e9;
    int lens[3] = {1, 2, 1};
    MPI_Aint displs[3] = {0, 8, 24};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_INT64_T};
    t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Type_create_struct(3, lens, displs, types, &dt);
        MPI_Type_commit(&dt);
        MPI_Type_free(&dt);
    }
    double w = (MPI_Wtime() - t) / n * 1e9;
    printf("comm_rank %.0f ns, self exchange %.0f ns, allreduce on self %.0f ns, pending test %.0f ns, empty probe %.0f ns, "
           "vector type %.0f ns, struct type %.0f ns\n",
           y, x, z, p, q, v, w);
    MPI_Finalize();
    return 0;
}
