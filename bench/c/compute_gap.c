/* What a computation between calls costs the next call, the C twin of
 * bench/cmd/compute-gap: ranks 0 and 1 each compute for US microseconds
 * (a loop on MPI_Wtime), then make an 8-byte round trip, ROUNDS times;
 * rank 0 prints the mean time of a round trip after its computation.
 *
 *   gompicc -O2 -o compute_gap bench/c/compute_gap.c
 *   gompirun -np 2 --mca btl self,sm ./compute_gap [us] [rounds]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* compute spins on the clock, a library call that the compiler keeps. */
static void compute(double us) {
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us)
        ;
}

/* number reads all of s into v; 0 if s is not a number. */
static int number(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0';
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double us = 50, n = 2000;
    int bad = (argc > 1 && !number(argv[1], &us)) || (argc > 2 && !number(argv[2], &n)) || n != (long)n;
    if (bad || size < 2 || us < 0 || n < 1) {
        if (rank == 0)
            fprintf(stderr, "compute_gap: wants 2 ranks or more, a number of microseconds >= 0 and a whole number of rounds >= 1 (got %d ranks, %s, %s)\n",
                    size, argc > 1 ? argv[1] : "50", argc > 2 ? argv[2] : "2000");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char b[8] = {0};
    for (int i = 0; i < 200; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double comm = 0;
    for (long i = 0; i < (long)n && rank < 2; i++) {
        compute(us);
        double t = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        comm += MPI_Wtime() - t;
    }
    if (rank == 0)
        printf("compute %.0f us: round trip after it %.2f us\n", us, comm / n * 1e6);
    MPI_Finalize();
    return 0;
}
