/* Loops of MPI_Test and its kin and of MPI_Iprobe, which the library
 * answers in C while
 * nothing can have changed: a token passed round the ring with each hop
 * waited for by testing, small, eager and rendezvous sizes; a send made
 * between tests that the awaited answer depends on; Testany over two
 * receives with a Test of a send in between, as HPCC's RandomAccess
 * polls; persistent receives restarted and tested; Testall and Testsome
 * over receives one of which completes first; probes in a loop, alone
 * and between tests; tests while non-blocking collectives or a large
 * send need this rank's polls. Every loop must end. Then the predefined
 * communicators' rank and size, asked at every step, which the library
 * also answers in C. It prints how many tests and probes it made, for
 * the profiling tools' count. */
#include "check.h"

static int rank, size, right, left;
static long tests, probes;

/* until tests r until it completes. */
static void until(MPI_Request *r, MPI_Status *st) {
    int flag = 0;
    while (!flag) {
        TRY(MPI_Test(r, &flag, st));
        tests++;
    }
    CHECK(*r == MPI_REQUEST_NULL, "a completed request's handle is %#lx, not MPI_REQUEST_NULL", (long)(uintptr_t)*r);
}

/* token passes a token of n ints round the ring: each rank tests its
 * receive a while before the token can have come (rank 0 tests before it
 * sends, so the send comes between tests), adds one and sends it on,
 * testing the send until it completes. */
static void token(int n, int rounds) {
    int *buf = calloc(n, sizeof *buf);
    CHECK(buf != NULL, "calloc of %d ints", n);
    for (int round = 0; round < rounds; round++) {
        MPI_Request r, s;
        MPI_Status st;
        int flag;
        TRY(MPI_Irecv(buf, n, MPI_INT, left, round, MPI_COMM_WORLD, &r));
        if (rank == 0) {
            for (int i = 0; i < 100; i++) {
                TRY(MPI_Test(&r, &flag, &st));
                tests++;
                CHECK(!flag, "round %d: the token came back before it left", round);
            }
            for (int i = 0; i < n; i++)
                buf[i] = round + i;
            TRY(MPI_Isend(buf, n, MPI_INT, right, round, MPI_COMM_WORLD, &s));
            until(&s, MPI_STATUS_IGNORE);
            until(&r, &st);
            for (int i = 0; i < n; i += n / 4 + 1)
                EQ(buf[i], round + i + size - 1, "token element after its lap");
        } else {
            until(&r, &st);
            for (int i = 0; i < n; i++)
                buf[i]++;
            TRY(MPI_Isend(buf, n, MPI_INT, right, round, MPI_COMM_WORLD, &s));
            until(&s, MPI_STATUS_IGNORE);
        }
        EQ(st.MPI_SOURCE, left, "token status source");
        EQ(st.MPI_TAG, round, "token status tag");
    }
    free(buf);
    printf("ok token %d ints rank %d\n", n, rank);
}

/* randomaccess: every rank sends bursts to both neighbours and polls a
 * receive from each with Testany, testing its own send in between, until
 * it has what both sent. Receives are posted again as they complete. */
static void randomaccess(void) {
    enum { BURSTS = 500, LEN = 256 };
    long in[2][LEN], out[LEN];
    MPI_Request r[2], s = MPI_REQUEST_NULL;
    int peers[2] = {left, right};
    long got[2] = {0, 0};
    int sent = 0, doneSending = 0;
    for (int j = 0; j < 2; j++)
        TRY(MPI_Irecv(in[j], LEN, MPI_LONG, peers[j], j, MPI_COMM_WORLD, &r[j]));
    while (got[0] < BURSTS || got[1] < BURSTS || !doneSending) {
        int idx, flag;
        MPI_Status st;
        TRY(MPI_Testany(2, r, &idx, &flag, &st));
        tests++;
        if (flag && idx == MPI_UNDEFINED) {
            CHECK(got[0] == BURSTS && got[1] == BURSTS, "Testany found no active request with %ld and %ld bursts in", got[0], got[1]);
        } else if (flag) {
            CHECK(idx == 0 || idx == 1, "Testany's index %d", idx);
            int count;
            TRY(MPI_Get_count(&st, MPI_LONG, &count));
            EQ(count, LEN, "burst length");
            EQ(in[idx][0], got[idx], "burst number");
            got[idx]++;
            if (got[idx] < BURSTS)
                TRY(MPI_Irecv(in[idx], LEN, MPI_LONG, peers[idx], idx, MPI_COMM_WORLD, &r[idx]));
        } else {
            EQ(idx, MPI_UNDEFINED, "Testany's index with none complete");
        }
        if (doneSending)
            continue;
        flag = s == MPI_REQUEST_NULL; /* the first: a test of it would not reach the tools */
        if (!flag) {
            TRY(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
            tests++;
        }
        if (flag) {
            /* to the right as its tag-0 receive, to the left as its tag 1 */
            int to = sent % 2 ? left : right, tag = sent % 2;
            for (int i = 0; i < LEN; i++)
                out[i] = sent / 2 + i;
            if (sent == 2 * BURSTS) {
                doneSending = 1;
                continue;
            }
            TRY(MPI_Isend(out, LEN, MPI_LONG, to, tag, MPI_COMM_WORLD, &s));
            sent++;
        }
    }
    printf("ok randomaccess rank %d\n", rank);
}

/* persistent restarts a persistent receive and tests it, the left
 * neighbour sending once the barrier says the receive was tested. */
static void persistent(void) {
    int v = -1;
    MPI_Request r;
    TRY(MPI_Recv_init(&v, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
    for (int round = 0; round < 200; round++) {
        int flag;
        MPI_Status st;
        TRY(MPI_Start(&r));
        TRY(MPI_Test(&r, &flag, &st));
        tests++;
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        int w = round * size + rank;
        TRY(MPI_Send(&w, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
        while (!flag) {
            TRY(MPI_Test(&r, &flag, &st));
            tests++;
        }
        EQ(v, round * size + left, "persistent receive's value");
        CHECK(r != MPI_REQUEST_NULL, "a persistent request's handle went on completion");
    }
    TRY(MPI_Request_free(&r));
    printf("ok persistent rank %d\n", rank);
}

/* halves receives from both neighbours, one message answering the other:
 * each rank tests both receives with MPI_Testall before any was sent,
 * sends to the right, waits with MPI_Testsome for the left's message,
 * answers it, and waits with MPI_Testall for the right's answer (which
 * may have come first). */
static void halves(int rounds) {
    for (int round = 0; round < rounds; round++) {
        int v[2] = {-1, -1}, w = round * size + rank, flag, out, idx[2];
        MPI_Request r[2];
        TRY(MPI_Irecv(&v[0], 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[0]));
        TRY(MPI_Irecv(&v[1], 1, MPI_INT, right, 4, MPI_COMM_WORLD, &r[1]));
        for (int i = 0; i < 50; i++) {
            TRY(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
            tests++;
            CHECK(!flag, "round %d: Testall found both receives complete before any send", round);
        }
        TRY(MPI_Barrier(MPI_COMM_WORLD)); /* every rank tested before any sends */
        TRY(MPI_Send(&w, 1, MPI_INT, right, 3, MPI_COMM_WORLD));
        int got[2] = {0, 0};
        while (!got[0]) {
            TRY(MPI_Testsome(2, r, &out, idx, MPI_STATUSES_IGNORE));
            tests++;
            CHECK(out >= 0 && out <= 2, "round %d: Testsome's count %d", round, out);
            for (int k = 0; k < out; k++)
                got[idx[k]]++;
        }
        CHECK(got[0] == 1 && got[1] <= 1, "round %d: Testsome reported the receives %d and %d times", round, got[0], got[1]);
        EQ(v[0], round * size + left, "the left neighbour's message");
        TRY(MPI_Send(&w, 1, MPI_INT, left, 4, MPI_COMM_WORLD));
        for (flag = 0; !flag;) {
            TRY(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
            tests++;
        }
        EQ(v[1], round * size + right, "the right neighbour's answer");
    }
    printf("ok halves rank %d\n", rank);
}

/* probing probes for a message from the left before it can have come,
 * then, once the barrier lets the neighbours send, probes for it while
 * testing a receive from the right in turn, until it has both. */
static void probing(int rounds) {
    for (int round = 0; round < rounds; round++) {
        int a = -1, b = -1, w = round * size + rank, found = 0, done = 0;
        MPI_Request r;
        MPI_Status st;
        TRY(MPI_Irecv(&b, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &r));
        for (int i = 0; i < 50; i++) {
            TRY(MPI_Iprobe(left, 5, MPI_COMM_WORLD, &found, &st));
            probes++;
            CHECK(!found, "round %d: a probe found a message before any was sent", round);
        }
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        TRY(MPI_Send(&w, 1, MPI_INT, left, 6, MPI_COMM_WORLD));
        TRY(MPI_Send(&w, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
        while (!found || !done) {
            if (!found) {
                TRY(MPI_Iprobe(left, 5, MPI_COMM_WORLD, &found, &st));
                probes++;
            }
            if (!done) {
                TRY(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
                tests++;
            }
        }
        EQ(st.MPI_SOURCE, left, "the probe's source");
        EQ(st.MPI_TAG, 5, "the probe's tag");
        TRY(MPI_Recv(&a, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EQ(a, round * size + left, "the probed message");
        EQ(b, round * size + right, "the tested message");
    }
    printf("ok probing rank %d\n", rank);
}

/* beside tests a receive while other work needs this rank's polls: a
 * non-blocking barrier and allreduce that the left neighbour completes
 * before it sends, and a large send, never tested, that the right
 * neighbour receives before it answers. */
static void beside(int rounds) {
    enum { BIG = 1 << 18 };
    int *big = malloc(BIG * sizeof *big), *got = malloc(BIG * sizeof *got);
    CHECK(big != NULL && got != NULL, "malloc of two %d-int buffers", BIG);
    for (int round = 0; round < rounds; round++) {
        int v = -1, w = round * size + rank, flag = 0;
        double x = rank, y = 0;
        MPI_Request r, b, a, s;
        TRY(MPI_Irecv(&v, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &r));
        for (int i = 0; i < 20; i++) {
            TRY(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            tests++;
        }
        TRY(MPI_Ibarrier(MPI_COMM_WORLD, &b));
        TRY(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &a));
        if (rank == 0) {
            while (!flag) {
                TRY(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                tests++;
            }
            TRY(MPI_Wait(&b, MPI_STATUS_IGNORE));
            TRY(MPI_Wait(&a, MPI_STATUS_IGNORE));
        } else {
            TRY(MPI_Wait(&b, MPI_STATUS_IGNORE));
            TRY(MPI_Wait(&a, MPI_STATUS_IGNORE));
        }
        TRY(MPI_Send(&w, 1, MPI_INT, right, 8, MPI_COMM_WORLD));
        while (!flag) {
            TRY(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            tests++;
        }
        EQ(v, round * size + left, "the message after the collectives");
        EQ((long)y, (long)size * (size - 1) / 2, "the non-blocking allreduce's sum");

        for (int i = 0; i < BIG; i += 4096)
            big[i] = round + i;
        TRY(MPI_Isend(big, BIG, MPI_INT, right, 9, MPI_COMM_WORLD, &s));
        TRY(MPI_Irecv(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &r));
        TRY(MPI_Recv(got, BIG, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i += 4096)
            EQ(got[i], round + i, "the large message");
        TRY(MPI_Send(&w, 1, MPI_INT, left, 10, MPI_COMM_WORLD));
        for (flag = 0; !flag;) {
            TRY(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            tests++;
        }
        EQ(v, round * size + right, "the answer to the large message");
        TRY(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    free(big);
    free(got);
    printf("ok beside rank %d\n", rank);
}

/* asking asks MPI_COMM_WORLD's and MPI_COMM_SELF's rank and size n times
 * each, as a program that asks at every step does, and checks them
 * against the world group's, which the library answers in Go. */
static void asking(int n) {
    MPI_Group g;
    int grank, gsize;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &g));
    TRY(MPI_Group_rank(g, &grank));
    TRY(MPI_Group_size(g, &gsize));
    TRY(MPI_Group_free(&g));
    for (int i = 0; i < n; i++) {
        int r = -1, s = -1, sr = -1, ss = -1;
        TRY(MPI_Comm_rank(MPI_COMM_WORLD, &r));
        TRY(MPI_Comm_size(MPI_COMM_WORLD, &s));
        TRY(MPI_Comm_rank(MPI_COMM_SELF, &sr));
        TRY(MPI_Comm_size(MPI_COMM_SELF, &ss));
        CHECK(r == grank && s == gsize && sr == 0 && ss == 1,
              "ask %d: world rank %d of %d, self rank %d of %d; the world group says %d of %d", i, r, s, sr, ss,
              grank, gsize);
    }
    printf("ok asking rank %d\n", rank);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    token(2, 300);
    token(4096, 100);
    token(1 << 18, 10);
    randomaccess();
    persistent();
    halves(200);
    probing(200);
    beside(50);
    asking(100);
    printf("tests %ld probes %ld rank %d\n", tests, probes, rank);
    TRY(MPI_Finalize());
    return 0;
}
