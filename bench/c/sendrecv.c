/* The C twin of gompi-bench sendrecv: ranks 0 and 1 each call MPI_Sendrecv
 * with the other, both directions at once; the time of one exchange in
 * microseconds (not halved). Same flags, defaults and output as
 * gompi-bench (see bench.h).
 *
 *   mpirun -np 2 ./sendrecv -m 0:4194304 -i 1000 -x 100
 */
#include "bench.h"

static const struct measurement sendrecv = {
    .name = "sendrecv",
    .unit = "us",
    .about = "time of one exchange: ranks 0 and 1 each call Sendrecv with the other, both directions at once",
    .column = "Latency (us)",
    .min_size = 0,
    .defaults = {10000, 100, 1000, 10},
};

/* exchange is one round: a Sendrecv of m with the other rank. */
static void exchange(int rank, void *arg) {
    struct message *m = arg;
    int peer = 1 - rank;
    MPI_Sendrecv(m->s, m->count, m->type, peer, TAG_DATA, m->r, m->count, m->type, peer, TAG_DATA, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) { return bytes_main(&sendrecv, 1, exchange, argc, argv); }
