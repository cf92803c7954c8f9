/* Collectives through the C library: every blocking, non-blocking and
 * persistent collective, with int and MPI_Count counts where the library
 * has both, in place where the standard allows it, every rank as the
 * root, on MPI_COMM_WORLD, a duplicate of it and a split in reverse
 * order. Each result is checked against the values every rank computes
 * for itself. */
#include "check.h"

#define C 3     /* elements per rank */
#define MAX 128 /* room for any buffer on 4 ranks */

/* The forms of a collective: blocking, non-blocking, persistent, each
 * with int counts and with MPI_Count ones (the _c functions). */
enum form { B, BC, I, IC, P, PC };
static const char *form_names[] = {"blocking", "blocking_c", "nonblocking", "nonblocking_c", "persistent",
                                   "persistent_c"};
static const enum form every_form[] = {B, BC, I, IC, P, PC};
static const enum form int_forms[] = {B, I, P};

static MPI_Comm comm;
static int rank, size;
static const char *what; /* the call under test, for messages */

/* call is true when round must make the call: every round, but only the
 * first for a persistent request, which later rounds start again. */
static int call(enum form f, int round) { return round == 0 || f < P; }
static int rounds(enum form f) { return f >= P ? 3 : 1; }

/* complete finishes a round: Wait for a non-blocking call, Start and
 * Wait for a persistent one. */
static void complete(enum form f, MPI_Request *req) {
    if (f < I)
        return;
    if (f >= P)
        TRY(MPI_Start(req));
    TRY(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (f >= P)
        CHECK(*req != MPI_REQUEST_NULL, "%s: MPI_Wait dropped a persistent request", what);
    else
        CHECK(*req == MPI_REQUEST_NULL, "%s: MPI_Wait left the request", what);
}

static void release(enum form f, MPI_Request *req) {
    if (f >= P)
        TRY(MPI_Request_free(req));
}

/* val is what rank r contributes at i in round. */
static int val(int r, int i, int round) { return r * 100 + i + round * 1000 + 1; }

#define EXPECT(got, want)                                                                                 \
    do {                                                                                                  \
        int g_ = (got), w_ = (want);                                                                      \
        if (g_ != w_)                                                                                     \
            check_failed(__FILE__, __LINE__, "%s (%s%s) on %d ranks, round %d: %s is %d, want %d", what, \
                         form_names[f], inplace ? ", in place" : "", size, round, #got, g_, w_);          \
    } while (0)

static void barrier(enum form f, int inplace) {
    MPI_Request req = MPI_REQUEST_NULL;
    what = "barrier";
    for (int round = 0; round < rounds(f); round++) {
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Barrier(comm)); break;
            case I: TRY(MPI_Ibarrier(comm, &req)); break;
            case P: TRY(MPI_Barrier_init(comm, MPI_INFO_NULL, &req)); break;
            default: CHECK(0, "no form %d", f);
            }
        complete(f, &req);
    }
    release(f, &req);
}

static void bcast(enum form f, int inplace) {
    int buf[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "bcast";
    for (int root = 0; root < size; root++) {
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < C; i++)
                buf[i] = rank == root ? val(root, i, round) : -1;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Bcast(buf, C, MPI_INT, root, comm)); break;
                case BC: TRY(MPI_Bcast_c(buf, C, MPI_INT, root, comm)); break;
                case I: TRY(MPI_Ibcast(buf, C, MPI_INT, root, comm, &req)); break;
                case IC: TRY(MPI_Ibcast_c(buf, C, MPI_INT, root, comm, &req)); break;
                case P: TRY(MPI_Bcast_init(buf, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                case PC: TRY(MPI_Bcast_init_c(buf, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                }
            complete(f, &req);
            for (int i = 0; i < C; i++)
                EXPECT(buf[i], val(root, i, round));
        }
        release(f, &req);
    }
}

/* sum is the sum of val over ranks from..to-1. */
static int sum(int from, int to, int i, int round) {
    int s = 0;
    for (int r = from; r < to; r++)
        s += val(r, i, round);
    return s;
}

static void reduce(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "reduce";
    for (int root = 0; root < size; root++) {
        int here = inplace && rank == root;
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < C; i++) {
                in[i] = val(rank, i, round);
                out[i] = here ? in[i] : -1;
            }
            const void *s = here ? MPI_IN_PLACE : in;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Reduce(s, out, C, MPI_INT, MPI_SUM, root, comm)); break;
                case BC: TRY(MPI_Reduce_c(s, out, C, MPI_INT, MPI_SUM, root, comm)); break;
                case I: TRY(MPI_Ireduce(s, out, C, MPI_INT, MPI_SUM, root, comm, &req)); break;
                case IC: TRY(MPI_Ireduce_c(s, out, C, MPI_INT, MPI_SUM, root, comm, &req)); break;
                case P: TRY(MPI_Reduce_init(s, out, C, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &req)); break;
                case PC: TRY(MPI_Reduce_init_c(s, out, C, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &req)); break;
                }
            complete(f, &req);
            if (rank == root)
                for (int i = 0; i < C; i++)
                    EXPECT(out[i], sum(0, size, i, round));
        }
        release(f, &req);
    }
}

/* The reductions without a root: Allreduce, Scan and Exscan, one
 * function each form. */
enum reduction { ALLREDUCE, SCAN, EXSCAN };

static void reduction(enum reduction which, enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = (const char *[]){"allreduce", "scan", "exscan"}[which];
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < C; i++) {
            in[i] = val(rank, i, round);
            out[i] = inplace ? in[i] : -1;
        }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (which * 6 + f) {
            case ALLREDUCE * 6 + B: TRY(MPI_Allreduce(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case ALLREDUCE * 6 + BC: TRY(MPI_Allreduce_c(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case ALLREDUCE * 6 + I: TRY(MPI_Iallreduce(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case ALLREDUCE * 6 + IC: TRY(MPI_Iallreduce_c(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case ALLREDUCE * 6 + P: TRY(MPI_Allreduce_init(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case ALLREDUCE * 6 + PC: TRY(MPI_Allreduce_init_c(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case SCAN * 6 + B: TRY(MPI_Scan(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case SCAN * 6 + BC: TRY(MPI_Scan_c(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case SCAN * 6 + I: TRY(MPI_Iscan(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case SCAN * 6 + IC: TRY(MPI_Iscan_c(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case SCAN * 6 + P: TRY(MPI_Scan_init(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case SCAN * 6 + PC: TRY(MPI_Scan_init_c(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case EXSCAN * 6 + B: TRY(MPI_Exscan(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case EXSCAN * 6 + BC: TRY(MPI_Exscan_c(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case EXSCAN * 6 + I: TRY(MPI_Iexscan(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case EXSCAN * 6 + IC: TRY(MPI_Iexscan_c(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case EXSCAN * 6 + P: TRY(MPI_Exscan_init(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case EXSCAN * 6 + PC: TRY(MPI_Exscan_init_c(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            }
        complete(f, &req);
        for (int i = 0; i < C; i++)
            switch (which) {
            case ALLREDUCE: EXPECT(out[i], sum(0, size, i, round)); break;
            case SCAN: EXPECT(out[i], sum(0, rank + 1, i, round)); break;
            case EXSCAN:
                if (rank > 0) /* rank 0's is undefined */
                    EXPECT(out[i], sum(0, rank, i, round));
                break;
            }
    }
    release(f, &req);
}

static void allreduce(enum form f, int inplace) { reduction(ALLREDUCE, f, inplace); }
static void scan(enum form f, int inplace) { reduction(SCAN, f, inplace); }
static void exscan(enum form f, int inplace) { reduction(EXSCAN, f, inplace); }

/* reduce_scatter_block: rank r gets block r of the sum. */
static void reduce_scatter_block(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "reduce_scatter_block";
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < size * C; i++) {
            in[i] = val(rank, i, round);
            out[i] = inplace ? in[i] : -1;
        }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Reduce_scatter_block(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case BC: TRY(MPI_Reduce_scatter_block_c(s, out, C, MPI_INT, MPI_SUM, comm)); break;
            case I: TRY(MPI_Ireduce_scatter_block(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case IC: TRY(MPI_Ireduce_scatter_block_c(s, out, C, MPI_INT, MPI_SUM, comm, &req)); break;
            case P: TRY(MPI_Reduce_scatter_block_init(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            case PC: TRY(MPI_Reduce_scatter_block_init_c(s, out, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            }
        complete(f, &req);
        for (int i = 0; i < C; i++)
            EXPECT(out[i], sum(0, size, rank * C + i, round));
    }
    release(f, &req);
}

/* counts and displs of the v forms: rank q's block holds q+1 elements,
 * with a gap of one after each. */
static int vcount(int q) { return q + 1; }
static int vdispl(int q) { return q * (q + 1) / 2 + q; }

static void reduce_scatter(enum form f, int inplace) {
    int in[MAX], out[MAX], counts[8];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "reduce_scatter";
    int total = 0, mine = 0;
    for (int q = 0; q < size; q++) {
        counts[q] = vcount(q);
        if (q < rank)
            mine += counts[q];
        total += counts[q];
    }
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < total; i++) {
            in[i] = val(rank, i, round);
            out[i] = inplace ? in[i] : -1;
        }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Reduce_scatter(s, out, counts, MPI_INT, MPI_SUM, comm)); break;
            case I: TRY(MPI_Ireduce_scatter(s, out, counts, MPI_INT, MPI_SUM, comm, &req)); break;
            case P: TRY(MPI_Reduce_scatter_init(s, out, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req)); break;
            default: CHECK(0, "no form %d", f);
            }
        complete(f, &req);
        for (int i = 0; i < counts[rank]; i++)
            EXPECT(out[i], sum(0, size, mine + i, round));
    }
    release(f, &req);
}

static void allgather(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "allgather";
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < size * C; i++)
            out[i] = inplace && i / C == rank ? val(rank, i % C, round) : -1;
        for (int i = 0; i < C; i++)
            in[i] = val(rank, i, round);
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Allgather(s, C, MPI_INT, out, C, MPI_INT, comm)); break;
            case BC: TRY(MPI_Allgather_c(s, C, MPI_INT, out, C, MPI_INT, comm)); break;
            case I: TRY(MPI_Iallgather(s, C, MPI_INT, out, C, MPI_INT, comm, &req)); break;
            case IC: TRY(MPI_Iallgather_c(s, C, MPI_INT, out, C, MPI_INT, comm, &req)); break;
            case P: TRY(MPI_Allgather_init(s, C, MPI_INT, out, C, MPI_INT, comm, MPI_INFO_NULL, &req)); break;
            case PC: TRY(MPI_Allgather_init_c(s, C, MPI_INT, out, C, MPI_INT, comm, MPI_INFO_NULL, &req)); break;
            }
        complete(f, &req);
        for (int i = 0; i < size * C; i++)
            EXPECT(out[i], val(i / C, i % C, round));
    }
    release(f, &req);
}

static void allgatherv(enum form f, int inplace) {
    int in[MAX], out[MAX], counts[8], displs[8];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "allgatherv";
    for (int q = 0; q < size; q++)
        counts[q] = vcount(q), displs[q] = vdispl(q);
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < MAX; i++)
            out[i] = -1;
        for (int i = 0; i < counts[rank]; i++) {
            in[i] = val(rank, i, round);
            if (inplace)
                out[displs[rank] + i] = in[i];
        }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Allgatherv(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm)); break;
            case I: TRY(MPI_Iallgatherv(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm, &req)); break;
            case P:
                TRY(MPI_Allgatherv_init(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm, MPI_INFO_NULL, &req));
                break;
            default: CHECK(0, "no form %d", f);
            }
        complete(f, &req);
        for (int q = 0; q < size; q++) {
            for (int i = 0; i < counts[q]; i++)
                EXPECT(out[displs[q] + i], val(q, i, round));
            EXPECT(out[displs[q] + counts[q]], -1); /* the gap */
        }
    }
    release(f, &req);
}

/* pairval is what rank r sends rank q at i. */
static int pairval(int r, int q, int i, int round) { return r * 100 + q * 10 + i + round * 1000 + 1; }

static void alltoall(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "alltoall";
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < size * C; i++) {
            in[i] = pairval(rank, i / C, i % C, round);
            out[i] = inplace ? in[i] : -1;
        }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Alltoall(s, C, MPI_INT, out, C, MPI_INT, comm)); break;
            case BC: TRY(MPI_Alltoall_c(s, C, MPI_INT, out, C, MPI_INT, comm)); break;
            case I: TRY(MPI_Ialltoall(s, C, MPI_INT, out, C, MPI_INT, comm, &req)); break;
            case IC: TRY(MPI_Ialltoall_c(s, C, MPI_INT, out, C, MPI_INT, comm, &req)); break;
            case P: TRY(MPI_Alltoall_init(s, C, MPI_INT, out, C, MPI_INT, comm, MPI_INFO_NULL, &req)); break;
            case PC: TRY(MPI_Alltoall_init_c(s, C, MPI_INT, out, C, MPI_INT, comm, MPI_INFO_NULL, &req)); break;
            }
        complete(f, &req);
        for (int i = 0; i < size * C; i++)
            EXPECT(out[i], pairval(i / C, rank, i % C, round));
    }
    release(f, &req);
}

/* alltoallv: r sends q (r+q)%3+1 elements, as many as q sends r, which
 * the in-place form needs. */
static int tocount(int r, int q) { return (r + q) % 3 + 1; }

static void alltoallv(enum form f, int inplace) {
    int in[MAX], out[MAX], counts[8], displs[8];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "alltoallv";
    for (int q = 0, d = 0; q < size; q++) {
        counts[q] = tocount(rank, q);
        displs[q] = d;
        d += counts[q] + 1;
    }
    for (int round = 0; round < rounds(f); round++) {
        for (int i = 0; i < MAX; i++)
            in[i] = out[i] = -1;
        for (int q = 0; q < size; q++)
            for (int i = 0; i < counts[q]; i++) {
                in[displs[q] + i] = pairval(rank, q, i, round);
                if (inplace)
                    out[displs[q] + i] = in[displs[q] + i];
            }
        const void *s = inplace ? MPI_IN_PLACE : in;
        if (call(f, round))
            switch (f) {
            case B: TRY(MPI_Alltoallv(s, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm)); break;
            case I: TRY(MPI_Ialltoallv(s, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm, &req)); break;
            case P:
                TRY(MPI_Alltoallv_init(s, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm, MPI_INFO_NULL, &req));
                break;
            default: CHECK(0, "no form %d", f);
            }
        complete(f, &req);
        for (int q = 0; q < size; q++) {
            for (int i = 0; i < counts[q]; i++)
                EXPECT(out[displs[q] + i], pairval(q, rank, i, round));
            EXPECT(out[displs[q] + counts[q]], -1);
        }
    }
    release(f, &req);
}

static void gather(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "gather";
    for (int root = 0; root < size; root++) {
        int here = inplace && rank == root;
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < size * C; i++)
                out[i] = here && i / C == rank ? val(rank, i % C, round) : -1;
            for (int i = 0; i < C; i++)
                in[i] = val(rank, i, round);
            const void *s = here ? MPI_IN_PLACE : in;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Gather(s, C, MPI_INT, out, C, MPI_INT, root, comm)); break;
                case BC: TRY(MPI_Gather_c(s, C, MPI_INT, out, C, MPI_INT, root, comm)); break;
                case I: TRY(MPI_Igather(s, C, MPI_INT, out, C, MPI_INT, root, comm, &req)); break;
                case IC: TRY(MPI_Igather_c(s, C, MPI_INT, out, C, MPI_INT, root, comm, &req)); break;
                case P: TRY(MPI_Gather_init(s, C, MPI_INT, out, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                case PC: TRY(MPI_Gather_init_c(s, C, MPI_INT, out, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                }
            complete(f, &req);
            if (rank == root)
                for (int i = 0; i < size * C; i++)
                    EXPECT(out[i], val(i / C, i % C, round));
        }
        release(f, &req);
    }
}

static void gatherv(enum form f, int inplace) {
    int in[MAX], out[MAX], counts[8], displs[8];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "gatherv";
    for (int q = 0; q < size; q++)
        counts[q] = vcount(q), displs[q] = vdispl(q);
    for (int root = 0; root < size; root++) {
        int here = inplace && rank == root;
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < MAX; i++)
                out[i] = -1;
            for (int i = 0; i < counts[rank]; i++) {
                in[i] = val(rank, i, round);
                if (here)
                    out[displs[rank] + i] = in[i];
            }
            const void *s = here ? MPI_IN_PLACE : in;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Gatherv(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, comm)); break;
                case I:
                    TRY(MPI_Igatherv(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, comm, &req));
                    break;
                case P:
                    TRY(MPI_Gatherv_init(s, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, comm,
                                         MPI_INFO_NULL, &req));
                    break;
                default: CHECK(0, "no form %d", f);
                }
            complete(f, &req);
            if (rank == root)
                for (int q = 0; q < size; q++) {
                    for (int i = 0; i < counts[q]; i++)
                        EXPECT(out[displs[q] + i], val(q, i, round));
                    EXPECT(out[displs[q] + counts[q]], -1);
                }
        }
        release(f, &req);
    }
}

static void scatter(enum form f, int inplace) {
    int in[MAX], out[MAX];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "scatter";
    for (int root = 0; root < size; root++) {
        int here = inplace && rank == root;
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < size * C; i++)
                in[i] = rank == root ? pairval(root, i / C, i % C, round) : -1;
            for (int i = 0; i < C; i++)
                out[i] = -1;
            void *r = here ? MPI_IN_PLACE : out;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Scatter(in, C, MPI_INT, r, C, MPI_INT, root, comm)); break;
                case BC: TRY(MPI_Scatter_c(in, C, MPI_INT, r, C, MPI_INT, root, comm)); break;
                case I: TRY(MPI_Iscatter(in, C, MPI_INT, r, C, MPI_INT, root, comm, &req)); break;
                case IC: TRY(MPI_Iscatter_c(in, C, MPI_INT, r, C, MPI_INT, root, comm, &req)); break;
                case P: TRY(MPI_Scatter_init(in, C, MPI_INT, r, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                case PC: TRY(MPI_Scatter_init_c(in, C, MPI_INT, r, C, MPI_INT, root, comm, MPI_INFO_NULL, &req)); break;
                }
            complete(f, &req);
            for (int i = 0; i < C; i++)
                if (here) /* the root's block stays where it is */
                    EXPECT(in[rank * C + i], pairval(root, rank, i, round));
                else
                    EXPECT(out[i], pairval(root, rank, i, round));
        }
        release(f, &req);
    }
}

static void scatterv(enum form f, int inplace) {
    int in[MAX], out[MAX], counts[8], displs[8];
    MPI_Request req = MPI_REQUEST_NULL;
    what = "scatterv";
    for (int q = 0; q < size; q++)
        counts[q] = vcount(q), displs[q] = vdispl(q);
    for (int root = 0; root < size; root++) {
        int here = inplace && rank == root;
        for (int round = 0; round < rounds(f); round++) {
            for (int i = 0; i < MAX; i++)
                in[i] = out[i] = -1;
            if (rank == root)
                for (int q = 0; q < size; q++)
                    for (int i = 0; i < counts[q]; i++)
                        in[displs[q] + i] = pairval(root, q, i, round);
            void *r = here ? MPI_IN_PLACE : out;
            if (call(f, round))
                switch (f) {
                case B: TRY(MPI_Scatterv(in, counts, displs, MPI_INT, r, counts[rank], MPI_INT, root, comm)); break;
                case I:
                    TRY(MPI_Iscatterv(in, counts, displs, MPI_INT, r, counts[rank], MPI_INT, root, comm, &req));
                    break;
                case P:
                    TRY(MPI_Scatterv_init(in, counts, displs, MPI_INT, r, counts[rank], MPI_INT, root, comm,
                                          MPI_INFO_NULL, &req));
                    break;
                default: CHECK(0, "no form %d", f);
                }
            complete(f, &req);
            for (int i = 0; i < counts[rank]; i++)
                if (here)
                    EXPECT(in[displs[rank] + i], pairval(root, rank, i, round));
                else
                    EXPECT(out[i], pairval(root, rank, i, round));
            if (!here)
                EXPECT(out[counts[rank]], -1);
        }
        release(f, &req);
    }
}

/* reduce_local needs no other rank. */
static void reduce_local(void) {
    int in[C], inout[C];
    for (int i = 0; i < C; i++)
        in[i] = i + 1, inout[i] = 10 * i;
    TRY(MPI_Reduce_local(in, inout, C, MPI_INT, MPI_SUM));
    for (int i = 0; i < C; i++)
        EQ(inout[i], 11 * i + 1, "MPI_Reduce_local");
    TRY(MPI_Reduce_local_c(in, inout, C, MPI_INT, MPI_PROD));
    for (int i = 0; i < C; i++)
        EQ(inout[i], (11 * i + 1) * (i + 1), "MPI_Reduce_local_c");
}

/* insignificant passes what the standard says a call does not read as
 * nothing: NULL and MPI_DATATYPE_NULL for the buffers a non-root does
 * not use, 0 and MPI_DATATYPE_NULL beside MPI_IN_PLACE. */
static void insignificant(void) {
    int in[MAX], out[MAX], counts[8], displs[8];
    enum form f = B;
    int inplace = 1, round = 0;
    what = "a call given nothing where it reads nothing";
    for (int q = 0; q < size; q++)
        counts[q] = C, displs[q] = q * C;
    for (int i = 0; i < size * C; i++)
        out[i] = i / C == rank ? val(rank, i % C, 0) : -1;
    TRY(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, C, MPI_INT, comm));
    for (int i = 0; i < size * C; i++)
        EXPECT(out[i], val(i / C, i % C, 0));
    for (int i = 0; i < size * C; i++)
        out[i] = i / C == rank ? val(rank, i % C, 0) : -1;
    TRY(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, comm));
    for (int i = 0; i < size * C; i++)
        EXPECT(out[i], val(i / C, i % C, 0));
    for (int i = 0; i < size * C; i++)
        out[i] = pairval(rank, i / C, i % C, 0);
    TRY(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, C, MPI_INT, comm));
    for (int i = 0; i < size * C; i++)
        EXPECT(out[i], pairval(i / C, rank, i % C, 0));
    for (int i = 0; i < size * C; i++)
        out[i] = pairval(rank, i / C, i % C, 0);
    TRY(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, comm));
    for (int i = 0; i < size * C; i++)
        EXPECT(out[i], pairval(i / C, rank, i % C, 0));
    for (int root = 0; root < size; root++) {
        int me = rank == root;
        for (int i = 0; i < C; i++)
            in[i] = val(rank, i, 0);
        for (int i = 0; i < size * C; i++)
            out[i] = me && i / C == rank ? in[i % C] : -1;
        if (me)
            TRY(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, C, MPI_INT, root, comm));
        else
            TRY(MPI_Gather(in, C, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm));
        for (int i = 0; me && i < size * C; i++)
            EXPECT(out[i], val(i / C, i % C, 0));
        if (me)
            TRY(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, root, comm));
        else
            TRY(MPI_Gatherv(in, C, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, comm));
        for (int i = 0; me && i < size * C; i++)
            EXPECT(out[i], val(i / C, i % C, 0));
        for (int i = 0; i < size * C; i++)
            in[i] = pairval(root, i / C, i % C, 0);
        if (me)
            TRY(MPI_Scatter(in, C, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm));
        else
            TRY(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, out, C, MPI_INT, root, comm));
        for (int i = 0; !me && i < C; i++)
            EXPECT(out[i], pairval(root, rank, i, 0));
        if (me)
            TRY(MPI_Scatterv(in, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm));
        else
            TRY(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, out, C, MPI_INT, root, comm));
        for (int i = 0; !me && i < C; i++)
            EXPECT(out[i], pairval(root, rank, i, 0));
        for (int i = 0; i < C; i++)
            in[i] = val(rank, i, 0);
        TRY(MPI_Reduce(in, me ? out : NULL, C, MPI_INT, MPI_SUM, root, comm));
        for (int i = 0; me && i < C; i++)
            EXPECT(out[i], sum(0, size, i, 0));
    }
}

struct collective {
    const char *name;
    void (*run)(enum form, int inplace);
    const enum form *forms;
    int nforms;
    int inplace; /* whether it has an in-place form */
};

#define EVERY every_form, 6
#define INTS int_forms, 3

static const struct collective collectives[] = {
    {"barrier", barrier, INTS, 0},
    {"bcast", bcast, EVERY, 0},
    {"reduce", reduce, EVERY, 1},
    {"allreduce", allreduce, EVERY, 1},
    {"scan", scan, EVERY, 1},
    {"exscan", exscan, EVERY, 1},
    {"reduce_scatter_block", reduce_scatter_block, EVERY, 1},
    {"reduce_scatter", reduce_scatter, INTS, 1},
    {"allgather", allgather, EVERY, 1},
    {"allgatherv", allgatherv, INTS, 1},
    {"alltoall", alltoall, EVERY, 1},
    {"alltoallv", alltoallv, INTS, 1},
    {"gather", gather, EVERY, 1},
    {"gatherv", gatherv, INTS, 1},
    {"scatter", scatter, EVERY, 1},
    {"scatterv", scatterv, INTS, 1},
};

/* negative_displs passes buffers at the end of their arrays, so that
 * every displacement is negative, as C allows: Gatherv, Scatterv,
 * Allgatherv, Alltoallv and Alltoallw on MPI_COMM_WORLD, the blocks in
 * reverse order. */
static void negative_displs(void) {
    int in[MAX], out[MAX], counts[8], displs[8], counts2[8], displs2[8];
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int end = C * size; /* each rank's block, C ints at -C*(q+1) */
    enum form f = B;    /* for EXPECT's message */
    int inplace = 0, round = 0;
    what = "negative displacements";
    for (int q = 0; q < size; q++)
        counts[q] = C, displs[q] = -C * (q + 1);
    for (int i = 0; i < C; i++)
        in[i] = val(rank, i, round);
    for (int i = 0; i < MAX; i++)
        out[i] = -1;
    TRY(MPI_Gatherv(in, C, MPI_INT, out + end, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int q = 0; q < size; q++)
            for (int i = 0; i < C; i++)
                EXPECT(out[end - C * (q + 1) + i], val(q, i, round));
    int back[C];
    TRY(MPI_Scatterv(out + end, counts, displs, MPI_INT, back, C, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i < C; i++)
        EXPECT(back[i], val(rank, i, round));
    for (int i = 0; i < MAX; i++)
        out[i] = -1;
    TRY(MPI_Allgatherv(in, C, MPI_INT, out + end, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < C; i++)
            EXPECT(out[end - C * (q + 1) + i], val(q, i, round));
    /* Alltoallv: one int to each rank, from and to negative places. */
    for (int q = 0; q < size; q++) {
        in[q] = pairval(rank, q, 0, round);
        counts2[q] = 1, displs2[q] = q - size;
    }
    for (int i = 0; i < MAX; i++)
        out[i] = -1;
    TRY(MPI_Alltoallv(in + size, counts2, displs2, MPI_INT, out + size, counts2, displs2, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        EXPECT(out[q], pairval(q, rank, 0, round));
    /* Alltoallw: the send blocks' type has its int one int before its
     * address, the receive blocks lie before the buffer. */
    MPI_Datatype before, types[8], ints[8];
    int one = 1;
    MPI_Aint minus = -(MPI_Aint)sizeof(int);
    TRY(MPI_Type_create_hindexed(1, &one, &minus, MPI_INT, &before));
    TRY(MPI_Type_commit(&before));
    int sbytes[8], rbytes[8];
    for (int q = 0; q < size; q++) {
        types[q] = before, ints[q] = MPI_INT;
        sbytes[q] = (q + 1) * (int)sizeof(int), rbytes[q] = (q - size) * (int)sizeof(int);
    }
    for (int i = 0; i < MAX; i++)
        out[i] = -1;
    TRY(MPI_Alltoallw(in, counts2, sbytes, types, out + size, counts2, rbytes, ints, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        EXPECT(out[q], pairval(q, rank, 0, round));
    TRY(MPI_Type_free(&before));
}

/* apart_blocks: a v-form's blocks must be apart, not its buffers, and a
 * block of no elements may point anywhere, as FFTW's transposes and
 * PT-Scotch's gathers pass them: a send element in the gap between the
 * receive buffer's address and its first block; an empty receive block
 * whose displacement points past the data into the send array, or before
 * the buffer. Blocks that share memory are still refused. */
static void apart_blocks(void) {
    enum form f = B;
    int inplace = 0, round = 0;
    int mem[MAX], counts[8], displs[8];
    struct {
        int recv[8];
        int send[8];
    } b;
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    what = "a send element in the gap before the receive blocks";
    for (int q = 0; q < size; q++)
        counts[q] = 1, displs[q] = 2 + q;
    for (int i = 0; i < MAX; i++)
        mem[i] = -1;
    mem[1] = val(rank, 0, round);
    TRY(MPI_Allgatherv(&mem[1], 1, MPI_INT, mem, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        EXPECT(mem[2 + q], val(q, 0, round));
    EXPECT(mem[1], val(rank, 0, round));
    for (int q = 0; q < size; q++)
        mem[2 + q] = -1;
    TRY(MPI_Gatherv(&mem[1], 1, MPI_INT, mem, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    for (int q = 0; rank == 0 && q < size; q++)
        EXPECT(mem[2 + q], val(q, 0, round));

    /* The last rank sends nothing: its empty block at each receiver points
     * into the send array, and at the root before the buffer. */
    what = "empty blocks that point outside the data";
    int last = size - 1, scounts[8], sdispls[8];
    for (int q = 0; q < size; q++) {
        scounts[q] = rank == last ? 0 : 1, sdispls[q] = q;
        counts[q] = q == last ? 0 : 1, displs[q] = q == last ? 10 : q;
        b.send[q] = pairval(rank, q, 0, round), b.recv[q] = -1;
    }
    TRY(MPI_Alltoallv(b.send, scounts, sdispls, MPI_INT, b.recv, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < last; q++)
        EXPECT(b.recv[q], pairval(q, rank, 0, round));
    EXPECT(b.recv[last], -1);
    displs[last] = -1;
    for (int q = 0; q < size; q++)
        b.recv[q] = -1;
    TRY(MPI_Gatherv(b.send, rank == last ? 0 : 1, MPI_INT, b.recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    for (int q = 0; rank == 0 && q < last; q++)
        EXPECT(b.recv[q], pairval(q, 0, 0, round));

    /* Each rank's send element is its own receive block: refused on every
     * rank, before any message. */
    MPI_Comm errs;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &errs));
    TRY(MPI_Comm_set_errhandler(errs, MPI_ERRORS_RETURN));
    for (int q = 0; q < size; q++)
        counts[q] = 1, displs[q] = 2 + q;
    RC(MPI_Allgatherv(&mem[2 + rank], 1, MPI_INT, mem, counts, displs, MPI_INT, errs), MPI_ERR_BUFFER);
    TRY(MPI_Comm_free(&errs));
}

/* refused_free: MPI_Request_free refuses an active collective's request
 * and leaves the handle, which MPI_Wait then completes. Rank 0 tries
 * before the others join the barrier, so that it cannot have completed. */
static void refused_free(void) {
    int wrank, wsize, go = 1;
    MPI_Request req;
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    if (wrank == 0) {
        TRY(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        RC(MPI_Request_free(&req), MPI_ERR_REQUEST);
        CHECK(req != MPI_REQUEST_NULL, "a refused MPI_Request_free made the request MPI_REQUEST_NULL");
        for (int q = 1; q < wsize; q++)
            TRY(MPI_Send(&go, 1, MPI_INT, q, 0, MPI_COMM_WORLD));
    } else {
        TRY(MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TRY(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    }
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the completed request");
}

/* every runs each collective in each form on comm. */
static void every(const char *name) {
    TRY(MPI_Comm_rank(comm, &rank));
    TRY(MPI_Comm_size(comm, &size));
    for (size_t c = 0; c < sizeof collectives / sizeof collectives[0]; c++)
        for (int k = 0; k < collectives[c].nforms; k++)
            for (int inplace = 0; inplace <= collectives[c].inplace; inplace++)
                collectives[c].run(collectives[c].forms[k], inplace);
    insignificant();
    char part[64];
    snprintf(part, sizeof part, "collectives on %s", name);
    passed(part);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    int wrank;
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));

    comm = MPI_COMM_WORLD;
    every("MPI_COMM_WORLD");

    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    every("a duplicate");
    TRY(MPI_Comm_free(&comm));

    /* Even and odd ranks apart, each in reverse order. */
    TRY(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &comm));
    every("a split");
    TRY(MPI_Comm_free(&comm));

    negative_displs();
    apart_blocks();
    passed("negative displacements");
    reduce_local();
    passed("reduce_local");
    refused_free();
    passed("refused request free");
    TRY(MPI_Finalize());
    return 0;
}
