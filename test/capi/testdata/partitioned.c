/* Partitioned communication: a ring of partitioned sends and receives cut
 * differently on the two sides, restarted, with partitions made ready by
 * MPI_Pready, MPI_Pready_range and MPI_Pready_list in a shuffled order and
 * watched with MPI_Parrived; derived datatypes on either side, one whose
 * elements the sender's partitions cut; errors, among them a count that
 * only an MPI_Count holds (MPI-5.0's binding: the count is MPI_Count, and
 * there is no _c form). Runs on 2 or more ranks. */
#include "check.h"

static int rank, size, right, left;

static void ring(void) {
    enum { N = 96 };
    int out[N], in[N];
    MPI_Request s, r;
    TRY(MPI_Psend_init(out, 8, N / 8, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    TRY(MPI_Precv_init(in, 3, N / 3, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            out[i] = rank * 10000 + round * 1000 + i, in[i] = -1;
        MPI_Request both[2] = {s, r};
        TRY(MPI_Startall(2, both));
        int list[3] = {7, 2, 5};
        TRY(MPI_Pready_list(3, list, s));
        TRY(MPI_Pready_range(3, 4, s));
        TRY(MPI_Pready(0, s));
        TRY(MPI_Pready(6, s));
        TRY(MPI_Pready(1, s));
        for (int seen = 0; seen < 3;) {
            seen = 0;
            for (int p = 0; p < 3; p++) {
                int flag = 0;
                TRY(MPI_Parrived(r, p, &flag));
                seen += flag;
            }
        }
        MPI_Status st;
        TRY(MPI_Wait(&r, &st));
        TRY(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK(r != MPI_REQUEST_NULL && s != MPI_REQUEST_NULL, "partitioned requests freed by MPI_Wait");
        int n = -1;
        TRY(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && n == N, "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
        for (int i = 0; i < N; i++)
            CHECK(in[i] == left * 10000 + round * 1000 + i, "round %d: in[%d] = %d", round, i, in[i]);
    }
    TRY(MPI_Request_free(&s));
    TRY(MPI_Request_free(&r));
    CHECK(s == MPI_REQUEST_NULL && r == MPI_REQUEST_NULL, "freed requests are not MPI_REQUEST_NULL");
    passed("partitioned ring");
}

/* A vector type of 4 ints with a stride of 2: its extent is 7 ints, so
   element e holds ints 7e, 7e+2, 7e+4 and 7e+6. */
static void derived(void) {
    MPI_Datatype alt;
    TRY(MPI_Type_vector(4, 1, 2, MPI_INT, &alt));
    TRY(MPI_Type_commit(&alt));
    int out[32], in[32], flat[16];
    for (int i = 0; i < 32; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    MPI_Request s, r;
    /* Vector elements sent, 4 partitions of one; received as 16 ints in 2. */
    TRY(MPI_Psend_init(out, 4, 1, alt, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    TRY(MPI_Precv_init(flat, 2, 8, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    TRY(MPI_Start(&r));
    TRY(MPI_Start(&s));
    TRY(MPI_Pready_range(0, 3, s));
    TRY(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TRY(MPI_Wait(&s, MPI_STATUS_IGNORE));
    for (int k = 0; k < 16; k++)
        CHECK(flat[k] == left * 100 + 7 * (k / 4) + 2 * (k % 4), "flat[%d] = %d", k, flat[k]);
    TRY(MPI_Request_free(&s));
    TRY(MPI_Request_free(&r));
    /* 16 ints sent in 8 partitions of 2, received as 4 vector elements in
       2 partitions: the sender's partitions cut the receiver's elements. */
    for (int k = 0; k < 16; k++)
        flat[k] = rank * 100 + k;
    TRY(MPI_Psend_init(flat, 8, 2, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    TRY(MPI_Precv_init(in, 2, 2, alt, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    TRY(MPI_Start(&r));
    TRY(MPI_Start(&s));
    int flag = 1;
    TRY(MPI_Parrived(r, 1, &flag));
    CHECK(!flag, "partition 1 arrived before any was ready");
    TRY(MPI_Barrier(MPI_COMM_WORLD)); /* no partition is ready before every rank looked */
    for (int p = 7; p >= 0; p--)
        TRY(MPI_Pready(p, s));
    TRY(MPI_Wait(&s, MPI_STATUS_IGNORE));
    do
        TRY(MPI_Parrived(r, 0, &flag));
    while (!flag);
    for (int k = 0; k < 8; k++) /* elements 0 and 1 */
        CHECK(in[7 * (k / 4) + 2 * (k % 4)] == left * 100 + k, "partition 0 once arrived: element %d, int %d is %d", k / 4, k % 4,
              in[7 * (k / 4) + 2 * (k % 4)]);
    TRY(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int want[32];
    for (int i = 0; i < 32; i++)
        want[i] = -1;
    for (int k = 0; k < 16; k++)
        want[7 * (k / 4) + 2 * (k % 4)] = left * 100 + k;
    for (int i = 0; i < 32; i++)
        CHECK(in[i] == want[i], "in[%d] = %d, want %d", i, in[i], want[i]);
    TRY(MPI_Request_free(&s));
    TRY(MPI_Request_free(&r));
    TRY(MPI_Type_free(&alt));
    passed("partitioned derived datatypes");
}

static void errors(void) {
    int buf[8];
    MPI_Request r, s;
    RC(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_ARG);
    RC(MPI_Psend_init(buf, -1, 4, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_COUNT);
    /* 2^62 elements twice over: refused whole, not cut to 32 bits (0). */
    RC(MPI_Psend_init(buf, 2, (MPI_Count)1 << 62, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_COUNT);
    RC(MPI_Precv_init(buf, 4, (MPI_Count)1 << 62, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_COUNT);
    TRY(MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    RC(MPI_Pready(0, s), MPI_ERR_REQUEST);
    TRY(MPI_Start(&s));
    RC(MPI_Pready(2, s), MPI_ERR_ARG);
    RC(MPI_Pready_list(1, (int[]){-1}, s), MPI_ERR_ARG);
    int flag;
    RC(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST);
    RC(MPI_Cancel(&s), MPI_ERR_REQUEST);
    /* Freed now, its partitions would never go: refused, it stays. */
    RC(MPI_Request_free(&s), MPI_ERR_REQUEST);
    CHECK(s != MPI_REQUEST_NULL, "a refused MPI_Request_free made the request MPI_REQUEST_NULL");
    TRY(MPI_Pready_range(0, 1, s));
    TRY(MPI_Wait(&s, MPI_STATUS_IGNORE));
    TRY(MPI_Request_free(&s));
    /* A null or inactive request has arrived, as MPI says. */
    flag = 0;
    TRY(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    CHECK(flag, "MPI_Parrived on MPI_REQUEST_NULL gave flag 0");
    TRY(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    flag = 0;
    TRY(MPI_Parrived(r, 1, &flag));
    CHECK(flag, "MPI_Parrived on an inactive receive gave flag 0");
    TRY(MPI_Request_free(&r));
    passed("partitioned errors");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    right = (rank + 1) % size, left = (rank + size - 1) % size;
    ring();
    derived();
    errors();
    TRY(MPI_Finalize());
    return 0;
}
