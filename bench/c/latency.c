/* OSU-style ping-pong between ranks 0 and 1: one-way latency (half the
 * round trip) in microseconds and bandwidth in MB/s, for sizes min..max by
 * powers of two. The same measurement as gompi's examples/pingpong, so the
 * two print comparable tables. Written for gompi's benchmark comparison.
 *
 *   mpirun -np 2 ./latency -m 0:4194304 -i 1000 -x 100
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long lo = 0, hi = 4194304;
    int iters = 1000, warm = 100, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "m:i:x:")) != -1) {
        switch (opt) {
        case 'm':
            if (sscanf(optarg, "%ld:%ld", &lo, &hi) != 2 || lo < 0 || hi < lo) {
                fprintf(stderr, "-m %s: want min:max\n", optarg);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            break;
        case 'i': iters = atoi(optarg); break;
        case 'x': warm = atoi(optarg); break;
        default: MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "latency needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(hi > 0 ? hi : 1);
    memset(buf, 1, hi > 0 ? hi : 1);
    if (rank == 0) {
        printf("# C MPI pingpong: ranks 0 and 1\n");
        printf("# %-10s %14s %14s\n", "Size", "Latency (us)", "MB/s");
    }
    for (long s = lo; s <= hi; s = s ? s * 2 : 1) {
        int n = s > 65536 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
        double start = 0;
        for (int i = 0; i < n + warm; i++) {
            if (i == warm) start = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)s, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)s, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)s, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)s, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            double oneway = (MPI_Wtime() - start) / n / 2;
            printf("%-12ld %14.2f %14.2f\n", s, oneway * 1e6, s / oneway / 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
