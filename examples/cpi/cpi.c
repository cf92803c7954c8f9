/* cpi: pi by the midpoint rule, the classic first C MPI program, on gompi's
 * C library. Rank 0 broadcasts the number of intervals, every rank sums its
 * share, and MPI_Reduce adds the shares up.
 *
 *   bin/gompicc -O2 -o cpi examples/cpi/cpi.c && bin/gompirun -np 4 ./cpi 10000000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, len, n = 1000000;
    char host[MPI_MAX_PROCESSOR_NAME], version[MPI_MAX_LIBRARY_VERSION_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    if (rank == 0) {
        if (argc > 1)
            n = atoi(argv[1]);
        MPI_Get_library_version(version, &len);
        printf("%s, %d ranks\n", version, size);
    }
    double start = MPI_Wtime();
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double h = 1.0 / n, sum = 0;
    for (int i = rank; i < n; i += size) {
        double x = h * (i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double mine = h * sum, pi = 0;
    MPI_Reduce(&mine, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi is %.16f, error %.2e, %d intervals, %.3f s\n", pi, fabs(pi - M_PI), n, MPI_Wtime() - start);
    MPI_Finalize();
    return 0;
}
