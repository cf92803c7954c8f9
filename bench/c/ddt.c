/* The C twin of gompi-bench ddt: ping-pong between ranks 0 and 1 of a
 * grid's column, sent and received with a vector datatype. A message of S
 * bytes is S/8 doubles, one in each row of a row-major grid DDT_WIDTH
 * doubles wide (MPI_Type_vector(S/8, 1, DDT_WIDTH, MPI_DOUBLE)): the halo
 * column of a 2-D stencil. One-way latency (half the round trip) in
 * microseconds; same flags, defaults and output as gompi-bench.
 *
 *   mpirun -np 2 ./ddt -m 8:4194304 -i 1000 -x 100
 */
#include "bench.h"

#define DDT_WIDTH 8

static const struct measurement ddt = {
    .name = "ddt",
    .unit = "us",
    .about = "one-way latency of a grid column sent as a vector datatype (8-byte blocks, stride 8 doubles), half the round trip between ranks 0 and 1",
    .column = "Latency (us)",
    .min_size = 8,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&ddt, argc, argv);
    need_ranks(&ddt, 2, 0);
    for (int k = 0; k < o.nsizes; k++)
        if (o.sizes[k] % 8)
            usage_error(ddt.name, "sizes must be multiples of 8 (whole doubles)", NULL);
    int rank = bench_rank();
    long grid = max_size(&o) * DDT_WIDTH;
    char *s = alloc_buffer(grid), *r = alloc_buffer(grid);
    warm_up();
    if (rank == 0)
        print_header(&ddt);
    for (int k = 0; k < o.nsizes; k++) {
        struct message m = {s, r, 1, MPI_DATATYPE_NULL}; /* one column */
        MPI_Type_vector((int)(o.sizes[k] / 8), 1, DDT_WIDTH, MPI_DOUBLE, &m.type);
        MPI_Type_commit(&m.type);
        double t = time_round(&o, o.sizes[k], 2, ping_pong, &m);
        if (rank == 0)
            print_row(o.sizes[k], t);
        MPI_Type_free(&m.type);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
