/* The C twin of gompi-bench incast: every rank but 0 sends windows of 64
 * non-blocking messages to rank 0, which posts one receive from any source
 * for each and then acknowledges every sender with 4 bytes; the time per
 * message received, in microseconds. Same flags, defaults and output as
 * gompi-bench (see bench.h).
 *
 *   mpirun -np 8 --oversubscribe ./incast -m 1:1024 -i 100 -x 10
 */
#include "bench.h"

#define WINDOW 64

static const struct measurement incast = {
    .name = "incast",
    .unit = "us",
    .about = "time per message received by rank 0 from n-1 senders, windows of 64 non-blocking sends per sender each "
             "acknowledged, receives from any source",
    .column = "Time (us)",
    .min_size = 1,
    .default_max = 1024,
    .defaults = {100, 10, 20, 2},
};

/* check_sources fails the job unless every sender's window arrived whole,
 * as gompi-bench checks. */
static void check_sources(const MPI_Status *st, int count, int n, int *from) {
    memset(from, 0, n * sizeof *from);
    for (int j = 0; j < count; j++) {
        int src = st[j].MPI_SOURCE;
        if (src < 1 || src >= n) {
            fprintf(stderr, "incast: a message came from rank %d, not a sender\n", src);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        from[src]++;
    }
    for (int r = 1; r < n; r++) {
        if (from[r] != WINDOW) {
            fprintf(stderr, "incast: rank %d's window brought %d messages, want %d\n", r, from[r], WINDOW);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&incast, argc, argv);
    need_ranks(&incast, 2, 0);
    int rank = bench_rank(), n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int nreqs = rank == 0 ? (n - 1) * WINDOW : WINDOW;
    char *buf = alloc_buffer(max_size(&o)), ack[4] = {0};
    MPI_Request *reqs = malloc(nreqs * sizeof *reqs);
    MPI_Status *st = malloc(nreqs * sizeof *st);
    int *from = malloc(n * sizeof *from);
    if (!reqs || !st || !from) {
        fprintf(stderr, "incast: out of memory for %d requests\n", nreqs);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    warm_up();
    if (rank == 0)
        print_header(&incast);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (rank == 0) {
                for (int j = 0; j < nreqs; j++)
                    MPI_Irecv(buf, (int)size, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
                MPI_Waitall(nreqs, reqs, st);
                check_sources(st, nreqs, n, from);
                for (int r = 1; r < n; r++)
                    MPI_Send(ack, 4, MPI_BYTE, r, TAG_ACK, MPI_COMM_WORLD);
            } else {
                for (int j = 0; j < nreqs; j++)
                    MPI_Isend(buf, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
                MPI_Waitall(nreqs, reqs, st);
                MPI_Recv(ack, 4, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        if (rank == 0)
            print_row(size, (MPI_Wtime() - start) / ((double)iters * (n - 1) * WINDOW) * 1e6);
    }
    free(buf);
    free(reqs);
    free(st);
    free(from);
    MPI_Finalize();
    return 0;
}
