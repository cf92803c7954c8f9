/* vcount: the large-count (_c) forms of the v-collectives, whose counts
 * are MPI_Count and displacements MPI_Aint, in blocking, non-blocking and
 * persistent forms; Isendrecv and Isendrecv_replace; memory from
 * MPI_Alloc_mem; the deprecated _x status calls. */
#include "check.h"

static int rank, size;

/* Rank r sends r+1 ints of value 100*r+j to each rank; blocks are laid
 * out with a gap of one int between them. */
static MPI_Count cnt(int r) { return r + 1; }

static void vcoll(void) {
    int n = size;
    MPI_Count *scounts = malloc(n * sizeof *scounts), *rcounts = malloc(n * sizeof *rcounts);
    MPI_Aint *sdispls = malloc(n * sizeof *sdispls), *rdispls = malloc(n * sizeof *rdispls);
    int total = 0;
    for (int i = 0; i < n; i++) {
        rcounts[i] = cnt(i);
        rdispls[i] = total;
        total += cnt(i) + 1;
    }
    int *recv = malloc(total * sizeof *recv), *send = malloc((cnt(rank) + 1) * n * sizeof *send);
    for (int f = 0; f < 3; f++) {
        MPI_Request req;
        /* Gatherv_c to each root in turn. */
        for (int root = 0; root < n; root++) {
            for (int j = 0; j < cnt(rank); j++)
                send[j] = 100 * rank + j;
            memset(recv, 0xff, total * sizeof *recv);
            if (f == 0)
                TRY(MPI_Gatherv_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD));
            else if (f == 1) {
                TRY(MPI_Igatherv_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD, &req));
                TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                TRY(MPI_Gatherv_init_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &req));
                TRY(MPI_Start(&req));
                TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
                TRY(MPI_Request_free(&req));
            }
            if (rank == root)
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < cnt(i); j++)
                        EQ(recv[rdispls[i] + j], 100 * i + j, "gatherv_c's block element");
        }
        /* Allgatherv_c. */
        memset(recv, 0xff, total * sizeof *recv);
        if (f == 0)
            TRY(MPI_Allgatherv_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
        else if (f == 1) {
            TRY(MPI_Iallgatherv_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, &req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            TRY(MPI_Allgatherv_init_c(send, cnt(rank), MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &req));
            TRY(MPI_Start(&req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
            TRY(MPI_Request_free(&req));
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < cnt(i); j++)
                EQ(recv[rdispls[i] + j], 100 * i + j, "allgatherv_c's block element");
        /* Scatterv_c from rank 0: rank i gets cnt(i) ints from rdispls[i]. */
        int got[64];
        if (rank == 0)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < cnt(i); j++)
                    recv[rdispls[i] + j] = 7 * i + j;
        if (f == 0)
            TRY(MPI_Scatterv_c(recv, rcounts, rdispls, MPI_INT, got, cnt(rank), MPI_INT, 0, MPI_COMM_WORLD));
        else if (f == 1) {
            TRY(MPI_Iscatterv_c(recv, rcounts, rdispls, MPI_INT, got, cnt(rank), MPI_INT, 0, MPI_COMM_WORLD, &req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            TRY(MPI_Scatterv_init_c(recv, rcounts, rdispls, MPI_INT, got, cnt(rank), MPI_INT, 0, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &req));
            TRY(MPI_Start(&req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
            TRY(MPI_Request_free(&req));
        }
        for (int j = 0; j < cnt(rank); j++)
            EQ(got[j], 7 * rank + j, "scatterv_c's element");
        /* Alltoallv_c: rank r sends cnt(r) ints to each rank i, at r*... */
        for (int i = 0; i < n; i++) {
            scounts[i] = cnt(rank);
            sdispls[i] = i * (cnt(rank) + 1);
            for (int j = 0; j < cnt(rank); j++)
                send[sdispls[i] + j] = 1000 * rank + 10 * i + j;
        }
        memset(recv, 0xff, total * sizeof *recv);
        if (f == 0)
            TRY(MPI_Alltoallv_c(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
        else if (f == 1) {
            TRY(MPI_Ialltoallv_c(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, &req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            TRY(MPI_Alltoallv_init_c(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &req));
            TRY(MPI_Start(&req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
            TRY(MPI_Request_free(&req));
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < cnt(i); j++)
                EQ(recv[rdispls[i] + j], 1000 * i + 10 * rank + j, "alltoallv_c's block element");
        /* Reduce_scatter_c: rank i gets cnt(i) sums. */
        int sum = 0, in[256], out[64];
        for (int i = 0; i < n; i++)
            sum += cnt(i);
        for (int k = 0; k < sum; k++)
            in[k] = k + rank;
        if (f == 0)
            TRY(MPI_Reduce_scatter_c(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        else if (f == 1) {
            TRY(MPI_Ireduce_scatter_c(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            TRY(MPI_Reduce_scatter_init_c(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            TRY(MPI_Start(&req));
            TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
            TRY(MPI_Request_free(&req));
        }
        int first = 0;
        for (int i = 0; i < rank; i++)
            first += cnt(i);
        for (int j = 0; j < cnt(rank); j++)
            EQ(out[j], n * (first + j) + n * (n - 1) / 2, "reduce_scatter_c's sum");
    }
    free(scounts), free(rcounts), free(sdispls), free(rdispls), free(recv), free(send);
    passed("vcoll");
}

static void isendrecv(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Request req;
    MPI_Status st;
    TRY(MPI_Isendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &req));
    TRY(MPI_Wait(&req, &st));
    EQ(in, left, "Isendrecv's value");
    EQ(st.MPI_SOURCE, left, "Isendrecv's source");
    in = -1;
    TRY(MPI_Isendrecv_c(&out, 1, MPI_INT, right, 4, &in, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &req));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    EQ(in, left, "Isendrecv_c's value");
    int v = rank;
    TRY(MPI_Isendrecv_replace(&v, 1, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &req));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    EQ(v, left, "Isendrecv_replace's value");
    TRY(MPI_Isendrecv_replace_c(&v, 1, MPI_INT, left, 6, right, 6, MPI_COMM_WORLD, &req));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    EQ(v, rank, "Isendrecv_replace_c's value");
    passed("isendrecv");
}

static void memory(void) {
    int *p = NULL;
    TRY(MPI_Alloc_mem(64 * sizeof(int), MPI_INFO_NULL, &p));
    CHECK(p != NULL, "MPI_Alloc_mem gave NULL");
    for (int i = 0; i < 64; i++)
        p[i] = i;
    int sum = 0;
    TRY(MPI_Allreduce(&p[63], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EQ(sum, 63 * size, "a reduction from MPI_Alloc_mem's memory");
    TRY(MPI_Free_mem(p));
    /* Freeing what MPI_Alloc_mem did not give, or gave and took back, is
     * an error, not a crash in free. */
    RC(MPI_Free_mem(p), MPI_ERR_BASE);
    RC(MPI_Free_mem(&sum), MPI_ERR_BASE);
    TRY(MPI_Free_mem(NULL));
    RC(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG);

    /* A buffered send from allocated memory, detached with the _c form. */
    void *buf = NULL, *back = NULL;
    MPI_Count n = 0;
    TRY(MPI_Alloc_mem(1024 + MPI_BSEND_OVERHEAD, MPI_INFO_NULL, &buf));
    TRY(MPI_Buffer_attach(buf, 1024 + MPI_BSEND_OVERHEAD));
    TRY(MPI_Buffer_detach_c(&back, &n));
    CHECK(back == buf && n == 1024 + MPI_BSEND_OVERHEAD, "MPI_Buffer_detach_c gave %p of %lld bytes", back, (long long)n);
    TRY(MPI_Free_mem(buf));

    MPI_Status st;
    MPI_Count c = -1;
    memset(&st, 0, sizeof st);
    TRY(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 6));
    TRY(MPI_Get_elements_x(&st, MPI_DOUBLE, &c));
    EQ(c, 6, "MPI_Get_elements_x after MPI_Status_set_elements_x");
    passed("memory");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 8, "at most 8 ranks: the blocks are sized for that");
    vcoll();
    isendrecv();
    memory();
    TRY(MPI_Finalize());
    return 0;
}
