/* Point-to-point through the C library: every send mode blocking,
 * non-blocking and persistent, with int and MPI_Count counts; Sendrecv;
 * probes and statuses; the wildcards and MPI_PROC_NULL; every way to
 * complete requests; freeing and cancelling; buffered sends. Each rank
 * sends to the next on a ring and receives from the one before. */
#include "check.h"

#define N 64

static int rank, size, right, left;

static void fill(int *buf, int n, int from, int round) {
    for (int i = 0; i < n; i++)
        buf[i] = from * 1000 + round * 100 + i;
}

static void expect(const int *buf, int n, int from, int round, const char *what) {
    for (int i = 0; i < n; i++)
        if (buf[i] != from * 1000 + round * 100 + i)
            check_failed(__FILE__, __LINE__, "%s: element %d is %d, want %d", what, i, buf[i],
                         from * 1000 + round * 100 + i);
}

static void expect_status(const MPI_Status *st, int source, int tag, int count, const char *what) {
    int n = -1;
    CHECK(st->MPI_SOURCE == source, "%s: status source %d, want %d", what, st->MPI_SOURCE, source);
    CHECK(st->MPI_TAG == tag, "%s: status tag %d, want %d", what, st->MPI_TAG, tag);
    TRY(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == count, "%s: count %d, want %d", what, n, count);
}

enum mode { STANDARD, SYNCHRONOUS, READY, BUFFERED };
static const char *mode_names[] = {"standard", "synchronous", "ready", "buffered"};

/* blocking sends one message of each mode round the ring, with int and
 * MPI_Count counts, received with MPI_Recv and MPI_Recv_c. A ready send
 * needs its receive posted first: the barrier orders them. */
static void blocking(void) {
    int out[N], in[N];
    for (int m = STANDARD; m <= BUFFERED; m++)
        for (int large = 0; large < 2; large++) {
            int tag = 10 + m * 2 + large;
            MPI_Request req;
            MPI_Status st;
            fill(out, N, rank, m);
            memset(in, 0, sizeof in);
            if (large)
                TRY(MPI_Irecv_c(in, N, MPI_INT, left, tag, MPI_COMM_WORLD, &req));
            else
                TRY(MPI_Irecv(in, N, MPI_INT, left, tag, MPI_COMM_WORLD, &req));
            TRY(MPI_Barrier(MPI_COMM_WORLD));
            switch (m * 2 + large) {
            case 0: TRY(MPI_Send(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 1: TRY(MPI_Send_c(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 2: TRY(MPI_Ssend(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 3: TRY(MPI_Ssend_c(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 4: TRY(MPI_Rsend(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 5: TRY(MPI_Rsend_c(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 6: TRY(MPI_Bsend(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            case 7: TRY(MPI_Bsend_c(out, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
            }
            TRY(MPI_Wait(&req, &st));
            CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request %#x", MPI_Request_toint(req));
            expect(in, N, left, m, mode_names[m]);
            expect_status(&st, left, tag, N, mode_names[m]);
        }
    /* Blocking receives, int and MPI_Count. */
    for (int large = 0; large < 2; large++) {
        MPI_Status st;
        fill(out, N, rank, 7);
        if (rank % 2 == 0) {
            TRY(MPI_Send(out, N, MPI_INT, right, 20, MPI_COMM_WORLD));
            if (large)
                TRY(MPI_Recv_c(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
            else
                TRY(MPI_Recv(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
        } else {
            if (large)
                TRY(MPI_Recv_c(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
            else
                TRY(MPI_Recv(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
            TRY(MPI_Send(out, N, MPI_INT, right, 20, MPI_COMM_WORLD));
        }
        expect(in, N, left, 7, "MPI_Recv");
        expect_status(&st, left, 20, N, "MPI_Recv");
    }
    passed("blocking");
}

/* nonblocking sends one message of each mode with the I calls, int and
 * MPI_Count counts. */
static void nonblocking(void) {
    int out[8][N], in[8][N];
    MPI_Request reqs[16];
    MPI_Status sts[16];
    for (int k = 0; k < 8; k++) {
        memset(in[k], 0, sizeof in[k]);
        if (k % 2)
            TRY(MPI_Irecv_c(in[k], N, MPI_INT, left, 30 + k, MPI_COMM_WORLD, &reqs[k]));
        else
            TRY(MPI_Irecv(in[k], N, MPI_INT, left, 30 + k, MPI_COMM_WORLD, &reqs[k]));
    }
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 8; k++) {
        fill(out[k], N, rank, k);
        MPI_Request *r = &reqs[8 + k];
        switch (k) {
        case 0: TRY(MPI_Isend(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 1: TRY(MPI_Isend_c(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 2: TRY(MPI_Issend(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 3: TRY(MPI_Issend_c(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 4: TRY(MPI_Irsend(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 5: TRY(MPI_Irsend_c(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 6: TRY(MPI_Ibsend(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        case 7: TRY(MPI_Ibsend_c(out[k], N, MPI_INT, right, 30 + k, MPI_COMM_WORLD, r)); break;
        }
    }
    TRY(MPI_Waitall(16, reqs, sts));
    for (int k = 0; k < 16; k++)
        CHECK(reqs[k] == MPI_REQUEST_NULL, "MPI_Waitall left request %d", k);
    for (int k = 0; k < 8; k++) {
        expect(in[k], N, left, k, "nonblocking");
        expect_status(&sts[k], left, 30 + k, N, "nonblocking");
    }
    passed("nonblocking");
}

/* persistent makes one persistent request of each send mode and of the
 * receive, int and MPI_Count, and starts them three times. */
static void persistent(void) {
    int out[8][N], in[8][N];
    MPI_Request recvs[8], sends[8];
    for (int k = 0; k < 8; k++) {
        int tag = 40 + k;
        if (k % 2)
            TRY(MPI_Recv_init_c(in[k], N, MPI_INT, left, tag, MPI_COMM_WORLD, &recvs[k]));
        else
            TRY(MPI_Recv_init(in[k], N, MPI_INT, left, tag, MPI_COMM_WORLD, &recvs[k]));
        MPI_Request *r = &sends[k];
        switch (k) {
        case 0: TRY(MPI_Send_init(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 1: TRY(MPI_Send_init_c(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 2: TRY(MPI_Ssend_init(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 3: TRY(MPI_Ssend_init_c(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 4: TRY(MPI_Rsend_init(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 5: TRY(MPI_Rsend_init_c(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 6: TRY(MPI_Bsend_init(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        case 7: TRY(MPI_Bsend_init_c(out[k], N, MPI_INT, right, tag, MPI_COMM_WORLD, r)); break;
        }
    }
    for (int round = 0; round < 3; round++) {
        MPI_Status sts[8];
        for (int k = 0; k < 8; k++) {
            fill(out[k], N, rank, round * 10 + k);
            memset(in[k], 0, sizeof in[k]);
        }
        /* Startall the receives, one Start each for the sends: the ready
         * ones start after every rank's receives are posted. */
        TRY(MPI_Startall(8, recvs));
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < 8; k++)
            TRY(MPI_Start(&sends[k]));
        TRY(MPI_Waitall(8, sends, MPI_STATUSES_IGNORE));
        TRY(MPI_Waitall(8, recvs, sts));
        for (int k = 0; k < 8; k++) {
            CHECK(recvs[k] != MPI_REQUEST_NULL && sends[k] != MPI_REQUEST_NULL,
                  "a completed persistent request lost its handle");
            expect(in[k], N, left, round * 10 + k, "persistent");
            expect_status(&sts[k], left, 40 + k, N, "persistent");
        }
    }
    for (int k = 0; k < 8; k++) {
        TRY(MPI_Request_free(&recvs[k]));
        TRY(MPI_Request_free(&sends[k]));
        CHECK(recvs[k] == MPI_REQUEST_NULL && sends[k] == MPI_REQUEST_NULL, "MPI_Request_free left a handle");
    }
    passed("persistent");
}

/* sendrecv shifts round the ring with each Sendrecv call. */
static void sendrecv(void) {
    int out[N], in[N];
    MPI_Status st;
    fill(out, N, rank, 1);
    TRY(MPI_Sendrecv(out, N, MPI_INT, right, 50, in, N, MPI_INT, left, 50, MPI_COMM_WORLD, &st));
    expect(in, N, left, 1, "MPI_Sendrecv");
    expect_status(&st, left, 50, N, "MPI_Sendrecv");
    fill(out, N, rank, 2);
    TRY(MPI_Sendrecv_c(out, N, MPI_INT, right, 51, in, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    expect(in, N, left, 2, "MPI_Sendrecv_c");
    expect_status(&st, left, 51, N, "MPI_Sendrecv_c");
    fill(in, N, rank, 3);
    TRY(MPI_Sendrecv_replace(in, N, MPI_INT, right, 52, left, 52, MPI_COMM_WORLD, &st));
    expect(in, N, left, 3, "MPI_Sendrecv_replace");
    expect_status(&st, left, 52, N, "MPI_Sendrecv_replace");
    fill(in, N, rank, 4);
    TRY(MPI_Sendrecv_replace_c(in, N, MPI_INT, right, 53, left, 53, MPI_COMM_WORLD, &st));
    expect(in, N, left, 4, "MPI_Sendrecv_replace_c");
    passed("sendrecv");
}

/* probe: Probe and Iprobe find a message of a size the receiver learns
 * from its status; Get_count, Get_elements and their MPI_Count forms
 * read it, also for a derived datatype that the message does not fill. */
static void probe(void) {
    int out[N], in[N], n = 0, flag = 0;
    MPI_Count c = 0;
    MPI_Status st;
    int len = 5 + rank; /* what rank sends right */
    fill(out, N, rank, 5);
    TRY(MPI_Send(out, len, MPI_INT, right, 60, MPI_COMM_WORLD));
    TRY(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    expect_status(&st, left, 60, 5 + left, "MPI_Probe");
    TRY(MPI_Get_count_c(&st, MPI_INT, &c));
    EQ(c, 5 + left, "MPI_Get_count_c");
    TRY(MPI_Get_elements(&st, MPI_INT, &n));
    EQ(n, 5 + left, "MPI_Get_elements");
    TRY(MPI_Get_elements_c(&st, MPI_INT, &c));
    EQ(c, 5 + left, "MPI_Get_elements_c");
    /* As pairs of ints: an odd count of ints is no whole number of pairs. */
    MPI_Datatype pair;
    TRY(MPI_Type_contiguous(2, MPI_INT, &pair));
    TRY(MPI_Type_commit(&pair));
    TRY(MPI_Get_count(&st, pair, &n));
    EQ(n, (5 + left) % 2 ? MPI_UNDEFINED : (5 + left) / 2, "MPI_Get_count of pairs");
    TRY(MPI_Get_elements(&st, pair, &n));
    EQ(n, 5 + left, "MPI_Get_elements of pairs");
    TRY(MPI_Type_free(&pair));
    TRY(MPI_Recv(in, N, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    expect(in, 5 + left, left, 5, "probed message");

    TRY(MPI_Send(out, 3, MPI_INT, right, 61, MPI_COMM_WORLD));
    while (!flag)
        TRY(MPI_Iprobe(left, 61, MPI_COMM_WORLD, &flag, &st));
    expect_status(&st, left, 61, 3, "MPI_Iprobe");
    TRY(MPI_Recv(in, N, MPI_INT, left, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* Nothing else is pending between the barriers. */
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    TRY(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    EQ(flag, 0, "MPI_Iprobe with nothing sent");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    passed("probe");
}

/* wildcards: every other rank sends rank 0 a message tagged with its
 * rank, which rank 0 receives from MPI_ANY_SOURCE with MPI_ANY_TAG;
 * MPI_PROC_NULL sends and receives complete at once. */
static void wildcards(void) {
    int v = rank, got = 0;
    MPI_Status st;
    /* On a communicator of their own, where no other part's messages
     * match the wildcards. */
    MPI_Comm comm;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            TRY(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size, "source %d", st.MPI_SOURCE);
            EQ(st.MPI_TAG, st.MPI_SOURCE + 100, "the tag of the message from MPI_ANY_SOURCE");
            EQ(got, st.MPI_SOURCE, "the message from MPI_ANY_SOURCE");
            CHECK(!(seen & (1 << got)), "rank %d's message came twice", got);
            seen |= 1 << got;
        }
    } else {
        TRY(MPI_Send(&v, 1, MPI_INT, 0, 100 + rank, comm));
    }

    TRY(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    got = 42;
    TRY(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    EQ(got, 42, "the buffer of a receive from MPI_PROC_NULL");
    EQ(st.MPI_SOURCE, MPI_PROC_NULL, "the source of a receive from MPI_PROC_NULL");
    EQ(st.MPI_TAG, MPI_ANY_TAG, "the tag of a receive from MPI_PROC_NULL");
    int n = -1;
    TRY(MPI_Get_count(&st, MPI_INT, &n));
    EQ(n, 0, "the count of a receive from MPI_PROC_NULL");
    MPI_Request reqs[2];
    TRY(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]));
    TRY(MPI_Irecv(&got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[1]));
    MPI_Status sts[2];
    TRY(MPI_Waitall(2, reqs, sts));
    EQ(sts[1].MPI_SOURCE, MPI_PROC_NULL, "the source of an Irecv from MPI_PROC_NULL");
    TRY(MPI_Probe(MPI_PROC_NULL, 1, comm, &st));
    EQ(st.MPI_SOURCE, MPI_PROC_NULL, "the source MPI_Probe of MPI_PROC_NULL found");
    int flag = 0;
    TRY(MPI_Iprobe(MPI_PROC_NULL, 1, comm, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Iprobe of MPI_PROC_NULL: flag %d source %d", flag,
          st.MPI_SOURCE);
    got = 42;
    TRY(MPI_Sendrecv_replace(&got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, comm, &st));
    CHECK(got == 42 && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Sendrecv_replace with MPI_PROC_NULL");

    TRY(MPI_Comm_free(&comm));

    /* MPI_DATATYPE_NULL stands for no data where the count is 0, as
     * MPICH takes it; with a count it is no datatype. On a communicator
     * of its own: rank 0's wildcards above may still be receiving. */
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    TRY(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, comm, &st));
    EQ(st.MPI_SOURCE, MPI_PROC_NULL, "the source of a zero-count MPI_DATATYPE_NULL receive");
    TRY(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, right, 2, NULL, 0, MPI_DATATYPE_NULL, left, 2, comm, &st));
    EQ(st.MPI_SOURCE, left, "the source of a zero-count MPI_DATATYPE_NULL exchange");
    MPI_Request zr;
    TRY(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, left, 3, comm, &zr));
    TRY(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 3, comm));
    TRY(MPI_Wait(&zr, &st));
    TRY(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == left && n == 0, "a zero-count MPI_DATATYPE_NULL message: source %d, count %d", st.MPI_SOURCE, n);
    RC(MPI_Send(&v, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, comm), MPI_ERR_TYPE);
    TRY(MPI_Comm_free(&comm));
    CHECK(comm == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    passed("wildcards");
}

/* completion: Test, Testall, Testany, Testsome, Waitany and Waitsome on
 * arrays with MPI_REQUEST_NULL among the requests. */
static void completion(void) {
    enum { K = 4 };
    int out[K], in[K];
    MPI_Request reqs[K + 1];
    MPI_Status sts[K + 1];
    int flag = 0, idx = -1, outcount = -1, indices[K + 1];

    /* Waitany: each message once, then MPI_UNDEFINED. */
    for (int k = 0; k < K; k++) {
        out[k] = rank * 10 + k;
        TRY(MPI_Irecv(&in[k], 1, MPI_INT, left, 70 + k, MPI_COMM_WORLD, &reqs[k]));
    }
    reqs[K] = MPI_REQUEST_NULL;
    for (int k = 0; k < K; k++)
        TRY(MPI_Send(&out[k], 1, MPI_INT, right, 70 + k, MPI_COMM_WORLD));
    int seen = 0;
    for (int k = 0; k < K; k++) {
        TRY(MPI_Waitany(K + 1, reqs, &idx, &sts[0]));
        CHECK(idx >= 0 && idx < K && !(seen & (1 << idx)), "MPI_Waitany gave index %d", idx);
        seen |= 1 << idx;
        CHECK(reqs[idx] == MPI_REQUEST_NULL, "MPI_Waitany left request %d", idx);
        EQ(in[idx], left * 10 + idx, "MPI_Waitany's message");
        EQ(sts[0].MPI_TAG, 70 + idx, "MPI_Waitany's status");
    }
    TRY(MPI_Waitany(K + 1, reqs, &idx, &sts[0]));
    EQ(idx, MPI_UNDEFINED, "MPI_Waitany of null requests");

    /* Testany with nothing complete: flag 0, index MPI_UNDEFINED. */
    MPI_Request never[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    TRY(MPI_Irecv(&in[0], 1, MPI_INT, left, 7999, MPI_COMM_WORLD, &never[1]));
    idx = -5;
    TRY(MPI_Testany(2, never, &idx, &flag, &sts[0]));
    CHECK(!flag && idx == MPI_UNDEFINED, "MPI_Testany with nothing complete: flag %d index %d", flag, idx);
    TRY(MPI_Cancel(&never[1]));
    TRY(MPI_Wait(&never[1], MPI_STATUS_IGNORE));

    /* Testany until each has come. */
    for (int k = 0; k < K; k++)
        TRY(MPI_Irecv(&in[k], 1, MPI_INT, left, 80 + k, MPI_COMM_WORLD, &reqs[k]));
    for (int k = 0; k < K; k++)
        TRY(MPI_Send(&out[k], 1, MPI_INT, right, 80 + k, MPI_COMM_WORLD));
    for (int done = 0; done < K;) {
        TRY(MPI_Testany(K + 1, reqs, &idx, &flag, &sts[0]));
        if (!flag)
            continue;
        CHECK(idx >= 0 && idx < K && reqs[idx] == MPI_REQUEST_NULL, "MPI_Testany gave index %d", idx);
        EQ(in[idx], left * 10 + idx, "MPI_Testany's message");
        done++;
    }
    TRY(MPI_Testany(K + 1, reqs, &idx, &flag, &sts[0]));
    CHECK(flag && idx == MPI_UNDEFINED, "MPI_Testany of null requests: flag %d index %d", flag, idx);

    /* Waitsome and Testsome. */
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < K; k++)
            TRY(MPI_Irecv(&in[k], 1, MPI_INT, left, 90 + k, MPI_COMM_WORLD, &reqs[k]));
        for (int k = 0; k < K; k++)
            TRY(MPI_Send(&out[k], 1, MPI_INT, right, 90 + k, MPI_COMM_WORLD));
        for (int done = 0; done < K;) {
            if (pass == 0)
                TRY(MPI_Waitsome(K + 1, reqs, &outcount, indices, sts));
            else
                TRY(MPI_Testsome(K + 1, reqs, &outcount, indices, sts));
            CHECK(outcount >= 0 && outcount <= K - done, "%s gave %d", pass ? "MPI_Testsome" : "MPI_Waitsome", outcount);
            for (int j = 0; j < outcount; j++) {
                int i = indices[j];
                CHECK(i >= 0 && i < K && reqs[i] == MPI_REQUEST_NULL, "index %d", i);
                EQ(in[i], left * 10 + i, "the message of Waitsome or Testsome");
                EQ(sts[j].MPI_TAG, 90 + i, "the status of Waitsome or Testsome");
            }
            done += outcount;
        }
        TRY(MPI_Waitsome(K + 1, reqs, &outcount, indices, sts));
        EQ(outcount, MPI_UNDEFINED, "MPI_Waitsome of null requests");
    }

    /* Test and Testall. */
    for (int k = 0; k < K; k++)
        TRY(MPI_Irecv(&in[k], 1, MPI_INT, left, 110 + k, MPI_COMM_WORLD, &reqs[k]));
    for (int k = 0; k < K; k++)
        TRY(MPI_Send(&out[k], 1, MPI_INT, right, 110 + k, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        TRY(MPI_Test(&reqs[0], &flag, &sts[0]));
    CHECK(reqs[0] == MPI_REQUEST_NULL, "MPI_Test left the request");
    EQ(sts[0].MPI_TAG, 110, "MPI_Test's status");
    for (flag = 0; !flag;)
        TRY(MPI_Testall(K + 1, reqs, &flag, sts));
    for (int k = 0; k < K; k++) {
        CHECK(reqs[k] == MPI_REQUEST_NULL, "MPI_Testall left request %d", k);
        EQ(in[k], left * 10 + k, "MPI_Testall's message");
        if (k > 0)
            EQ(sts[k].MPI_TAG, 110 + k, "MPI_Testall's status");
    }
    /* A null request tests complete, with an empty status. */
    MPI_Request null = MPI_REQUEST_NULL;
    TRY(MPI_Test(&null, &flag, &sts[0]));
    CHECK(flag && sts[0].MPI_SOURCE == MPI_ANY_SOURCE && sts[0].MPI_TAG == MPI_ANY_TAG,
          "MPI_Test of MPI_REQUEST_NULL: flag %d source %d tag %d", flag, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    TRY(MPI_Wait(&null, MPI_STATUS_IGNORE));
    /* Arrays of null requests, and of none. */
    MPI_Request nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    TRY(MPI_Testany(2, nulls, &idx, &flag, &sts[0]));
    CHECK(flag && idx == MPI_UNDEFINED, "MPI_Testany of null requests: flag %d index %d", flag, idx);
    TRY(MPI_Testsome(2, nulls, &outcount, indices, sts));
    EQ(outcount, MPI_UNDEFINED, "MPI_Testsome of null requests");
    TRY(MPI_Testall(2, nulls, &flag, MPI_STATUSES_IGNORE));
    EQ(flag, 1, "MPI_Testall of null requests");
    TRY(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    passed("completion");
}

/* requests: Request_free of an active send, which still arrives; Cancel
 * of a receive nothing matches; Request_get_status, which leaves the
 * request to Wait. */
static void requests(void) {
    int v = rank, got = -1, flag = -1;
    MPI_Request req;
    MPI_Status st;

    TRY(MPI_Isend(&v, 1, MPI_INT, right, 120, MPI_COMM_WORLD, &req));
    TRY(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
    TRY(MPI_Recv(&got, 1, MPI_INT, left, 120, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EQ(got, left, "the message of a freed send request");

    TRY(MPI_Irecv(&got, 1, MPI_INT, left, 121, MPI_COMM_WORLD, &req));
    TRY(MPI_Cancel(&req));
    TRY(MPI_Wait(&req, &st));
    TRY(MPI_Test_cancelled(&st, &flag));
    EQ(flag, 1, "MPI_Test_cancelled of a cancelled receive");
    /* A send to itself nobody receives, cancelled. */
    TRY(MPI_Isend(&v, 1, MPI_INT, rank, 123, MPI_COMM_WORLD, &req));
    TRY(MPI_Cancel(&req));
    TRY(MPI_Wait(&req, &st));
    TRY(MPI_Test_cancelled(&st, &flag));
    EQ(flag, 1, "MPI_Test_cancelled of a cancelled send");
    TRY(MPI_Iprobe(rank, 123, MPI_COMM_WORLD, &flag, &st));
    EQ(flag, 0, "MPI_Iprobe for a cancelled send");

    /* Nothing is sent on tag 122 before the barrier, which this rank has
     * not entered yet. */
    TRY(MPI_Irecv(&got, 1, MPI_INT, left, 122, MPI_COMM_WORLD, &req));
    TRY(MPI_Request_get_status(req, &flag, &st));
    EQ(flag, 0, "MPI_Request_get_status of a receive nothing was sent to");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    TRY(MPI_Send(&v, 1, MPI_INT, right, 122, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        TRY(MPI_Request_get_status(req, &flag, &st));
    expect_status(&st, left, 122, 1, "MPI_Request_get_status");
    CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    TRY(MPI_Wait(&req, &st));
    EQ(got, left, "the message MPI_Request_get_status saw");
    TRY(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    EQ(flag, 1, "MPI_Request_get_status of MPI_REQUEST_NULL");

    /* The _all, _any and _some forms: two receives, one of them sent to
     * after the barrier, beside a null request; none is freed. */
    MPI_Request rs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[3];
    int got2[2] = {-1, -1}, idx = -2, out = -2, indices[3];
    TRY(MPI_Irecv(&got2[0], 1, MPI_INT, left, 124, MPI_COMM_WORLD, &rs[0]));
    TRY(MPI_Irecv(&got2[1], 1, MPI_INT, left, 125, MPI_COMM_WORLD, &rs[2]));
    TRY(MPI_Request_get_status_all(3, rs, &flag, sts));
    EQ(flag, 0, "MPI_Request_get_status_all before any send");
    TRY(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    CHECK(flag == 0 && idx == MPI_UNDEFINED, "MPI_Request_get_status_any before any send: flag %d index %d", flag, idx);
    TRY(MPI_Request_get_status_some(3, rs, &out, indices, sts));
    EQ(out, 0, "MPI_Request_get_status_some before any send");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    TRY(MPI_Send(&v, 1, MPI_INT, right, 125, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        TRY(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    EQ(idx, 2, "MPI_Request_get_status_any's index");
    expect_status(&st, left, 125, 1, "MPI_Request_get_status_any");
    TRY(MPI_Request_get_status_some(3, rs, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 2, "MPI_Request_get_status_some: %d done, the first %d", out, indices[0]);
    expect_status(&sts[0], left, 125, 1, "MPI_Request_get_status_some");
    TRY(MPI_Request_get_status_all(3, rs, &flag, sts));
    EQ(flag, 0, "MPI_Request_get_status_all with one receive pending");
    TRY(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has looked before tag 124 is sent */
    TRY(MPI_Send(&v, 1, MPI_INT, right, 124, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        TRY(MPI_Request_get_status_all(3, rs, &flag, sts));
    expect_status(&sts[0], left, 124, 1, "MPI_Request_get_status_all, the first");
    CHECK(sts[1].MPI_SOURCE == MPI_ANY_SOURCE && sts[1].MPI_TAG == MPI_ANY_TAG,
          "MPI_Request_get_status_all: a null request's status has source %d tag %d", sts[1].MPI_SOURCE, sts[1].MPI_TAG);
    expect_status(&sts[2], left, 125, 1, "MPI_Request_get_status_all, the last");
    CHECK(rs[0] != MPI_REQUEST_NULL && rs[2] != MPI_REQUEST_NULL, "MPI_Request_get_status_all freed a request");
    TRY(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
    CHECK(got2[0] == left && got2[1] == left, "the messages MPI_Request_get_status_* saw: %d %d", got2[0], got2[1]);
    TRY(MPI_Request_get_status_any(3, rs, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "MPI_Request_get_status_any of null requests: flag %d index %d", flag, idx);
    TRY(MPI_Request_get_status_some(3, rs, &out, indices, sts));
    EQ(out, MPI_UNDEFINED, "MPI_Request_get_status_some of null requests");

    /* A receive that failed has completed: the _all and _some forms return
     * MPI_ERR_IN_STATUS with each status's error, as Testall and Testsome
     * do, and still free nothing. */
    int small = -1, three[3] = {7, 8, 9}, big[3] = {-1, -1, -1};
    TRY(MPI_Irecv(&small, 1, MPI_INT, left, 126, MPI_COMM_WORLD, &rs[0]));
    TRY(MPI_Irecv(big, 3, MPI_INT, left, 127, MPI_COMM_WORLD, &rs[2]));
    TRY(MPI_Send(three, 3, MPI_INT, right, 126, MPI_COMM_WORLD));
    TRY(MPI_Send(three, 3, MPI_INT, right, 127, MPI_COMM_WORLD));
    int rc = MPI_SUCCESS;
    for (flag = 0; !flag;) {
        rc = MPI_Request_get_status_all(3, rs, &flag, sts);
        CHECK(flag || rc == MPI_SUCCESS, "MPI_Request_get_status_all returned %d with flag 0", rc);
    }
    EQ(rc, MPI_ERR_IN_STATUS, "MPI_Request_get_status_all with a truncated receive");
    CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS && sts[2].MPI_ERROR == MPI_SUCCESS,
          "MPI_Request_get_status_all's errors: %d %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR, sts[2].MPI_ERROR);
    expect_status(&sts[2], left, 127, 3, "MPI_Request_get_status_all beside a truncated receive");
    EQ(MPI_Request_get_status_some(3, rs, &out, indices, sts), MPI_ERR_IN_STATUS, "MPI_Request_get_status_some with a truncated receive");
    CHECK(out == 2 && indices[0] == 0 && indices[1] == 2, "MPI_Request_get_status_some: %d done: %d %d", out, indices[0], indices[1]);
    CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS,
          "MPI_Request_get_status_some's errors: %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    CHECK(rs[0] != MPI_REQUEST_NULL && rs[2] != MPI_REQUEST_NULL, "a failed request was freed");
    EQ(MPI_Request_get_status_any(3, rs, &idx, &flag, &st), MPI_ERR_TRUNCATE, "MPI_Request_get_status_any of a truncated receive");
    CHECK(flag == 1 && idx == 0, "MPI_Request_get_status_any of a truncated receive: flag %d index %d", flag, idx);
    EQ(MPI_Waitall(3, rs, sts), MPI_ERR_IN_STATUS, "MPI_Waitall with a truncated receive");
    CHECK(big[0] == 7 && big[2] == 9, "the message beside the truncated one: %d %d", big[0], big[2]);
    passed("requests");
}

/* buffered: Bsend needs an attached buffer; detaching gives it back and
 * waits for the messages in it. */
static void buffered(void) {
    int size = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc(size);
    int out[N], in[N];
    void *back = NULL;
    int back_size = 0;
    TRY(MPI_Buffer_detach(&back, &back_size)); /* main's */
    free(back);
    TRY(MPI_Buffer_attach(buf, size));
    fill(out, N, rank, 9);
    TRY(MPI_Bsend(out, N, MPI_INT, right, 130, MPI_COMM_WORLD));
    TRY(MPI_Recv(in, N, MPI_INT, left, 130, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect(in, N, left, 9, "MPI_Bsend");
    TRY(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == buf && back_size == size, "MPI_Buffer_detach gave %p of %d bytes, want %p of %d", back, back_size,
          (void *)buf, size);
    TRY(MPI_Buffer_attach_c(buf, size));
    TRY(MPI_Bsend(out, N, MPI_INT, right, 131, MPI_COMM_WORLD));
    TRY(MPI_Buffer_detach(&back, &back_size));
    TRY(MPI_Recv(in, N, MPI_INT, left, 131, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect(in, N, left, 9, "MPI_Bsend through MPI_Buffer_attach_c");
    free(buf);
    /* MPI_BUFFER_AUTOMATIC: the library finds room for any number of
     * buffered sends. */
    TRY(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int k = 0; k < 8; k++)
        TRY(MPI_Bsend(out, N, MPI_INT, right, 160 + k, MPI_COMM_WORLD));
    for (int k = 0; k < 8; k++) {
        TRY(MPI_Recv(in, N, MPI_INT, left, 160 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        expect(in, N, left, 9, "MPI_Bsend through MPI_BUFFER_AUTOMATIC");
    }
    TRY(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0, "MPI_Buffer_detach of MPI_BUFFER_AUTOMATIC gave %p of %d bytes",
          back, back_size);
    passed("buffered");
}

/* statuses: what Status_set_* write, the reading calls read. */
static void statuses(void) {
    MPI_Status st;
    int n = -1, flag = -1;
    MPI_Count c = -1;
    memset(&st, 0, sizeof st);
    TRY(MPI_Status_set_elements(&st, MPI_INT, 7));
    TRY(MPI_Get_count(&st, MPI_INT, &n));
    EQ(n, 7, "MPI_Get_count after MPI_Status_set_elements");
    TRY(MPI_Get_count(&st, MPI_SHORT, &n));
    EQ(n, 14, "MPI_Get_count in shorts after MPI_Status_set_elements");
    /* 28 bytes are no whole number of doubles. */
    TRY(MPI_Get_count(&st, MPI_DOUBLE, &n));
    EQ(n, MPI_UNDEFINED, "MPI_Get_count in doubles of 7 ints");
    TRY(MPI_Status_set_elements_c(&st, MPI_DOUBLE, 5));
    TRY(MPI_Get_elements_c(&st, MPI_DOUBLE, &c));
    EQ(c, 5, "MPI_Get_elements_c after MPI_Status_set_elements_c");
    TRY(MPI_Test_cancelled(&st, &flag));
    EQ(flag, 0, "MPI_Test_cancelled of a fresh status");
    TRY(MPI_Status_set_cancelled(&st, 1));
    TRY(MPI_Test_cancelled(&st, &flag));
    EQ(flag, 1, "MPI_Test_cancelled after MPI_Status_set_cancelled");
    TRY(MPI_Status_set_cancelled(&st, 0));
    TRY(MPI_Test_cancelled(&st, &flag));
    EQ(flag, 0, "MPI_Test_cancelled after clearing");
    TRY(MPI_Status_set_source(&st, 3));
    TRY(MPI_Status_set_tag(&st, 44));
    TRY(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    EQ(st.MPI_SOURCE, 3, "MPI_SOURCE after MPI_Status_set_source");
    EQ(st.MPI_TAG, 44, "MPI_TAG after MPI_Status_set_tag");
    EQ(st.MPI_ERROR, MPI_ERR_TRUNCATE, "MPI_ERROR after MPI_Status_set_error");
    TRY(MPI_Get_count(&st, MPI_DOUBLE, &n));
    EQ(n, 5, "MPI_Get_count after the source, tag and error were set");
    TRY(MPI_Status_get_source(&st, &n));
    EQ(n, 3, "MPI_Status_get_source");
    TRY(MPI_Status_get_tag(&st, &n));
    EQ(n, 44, "MPI_Status_get_tag");
    TRY(MPI_Status_get_error(&st, &n));
    EQ(n, MPI_ERR_TRUNCATE, "MPI_Status_get_error");
    int code = MPI_Status_get_tag(MPI_STATUS_IGNORE, &n), class = -1;
    TRY(MPI_Error_class(code, &class));
    EQ(class, MPI_ERR_ARG, "MPI_Status_get_tag of MPI_STATUS_IGNORE");
    passed("statuses");
}

/* strided sends a column of a matrix as a vector datatype, received as
 * contiguous ints. */
static void strided(void) {
    enum { R = 6, C = 5 };
    int m[R][C], col[R], sz = 0;
    MPI_Count csz = 0;
    MPI_Datatype column, column_c;
    MPI_Status st;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m[i][j] = rank * 100 + i * 10 + j;
    TRY(MPI_Type_vector(R, 1, C, MPI_INT, &column));
    TRY(MPI_Type_vector_c(R, 1, C, MPI_INT, &column_c));
    TRY(MPI_Type_commit(&column));
    TRY(MPI_Type_commit(&column_c));
    TRY(MPI_Type_size(column, &sz));
    EQ(sz, R * sizeof(int), "MPI_Type_size of a column");
    TRY(MPI_Type_size_c(column_c, &csz));
    EQ(csz, R * sizeof(int), "MPI_Type_size_c of a column");
    TRY(MPI_Sendrecv(&m[0][2], 1, column, right, 140, col, R, MPI_INT, left, 140, MPI_COMM_WORLD, &st));
    for (int i = 0; i < R; i++)
        EQ(col[i], left * 100 + i * 10 + 2, "a column's element");
    TRY(MPI_Sendrecv(col, R, MPI_INT, right, 141, &m[0][3], 1, column_c, left, 141, MPI_COMM_WORLD, &st));
    int n = -1;
    TRY(MPI_Get_count(&st, column_c, &n));
    EQ(n, 1, "MPI_Get_count of a column");
    for (int i = 0; i < R; i++) {
        EQ(m[i][3], (rank + size - 2) % size * 100 + i * 10 + 2, "a received column's element");
        EQ(m[i][4], rank * 100 + i * 10 + 4, "an element beside the column");
    }
    TRY(MPI_Type_free(&column));
    TRY(MPI_Type_free(&column_c));
    passed("strided");
}

/* large sends messages of 4 MiB, which take the transports' rendezvous
 * path, in each mode, from and into C memory the library reads and
 * writes after the call that named it returned. */
static void large(void) {
    enum { L = 1 << 20 };
    int *out = malloc(L * sizeof(int)), *in = malloc(L * sizeof(int));
    CHECK(out != NULL && in != NULL, "no memory for the large messages");
    for (int k = 0; k < 3; k++) {
        MPI_Request reqs[2];
        MPI_Status st;
        for (int i = 0; i < L; i++)
            out[i] = rank * 7 + k + i;
        memset(in, 0, L * sizeof(int));
        TRY(MPI_Irecv_c(in, L, MPI_INT, left, 150 + k, MPI_COMM_WORLD, &reqs[0]));
        switch (k) {
        case 0: TRY(MPI_Isend_c(out, L, MPI_INT, right, 150 + k, MPI_COMM_WORLD, &reqs[1])); break;
        case 1: TRY(MPI_Issend(out, L, MPI_INT, right, 150 + k, MPI_COMM_WORLD, &reqs[1])); break;
        case 2: TRY(MPI_Send_init(out, L, MPI_INT, right, 150 + k, MPI_COMM_WORLD, &reqs[1])); TRY(MPI_Start(&reqs[1])); break;
        }
        TRY(MPI_Wait(&reqs[0], &st));
        TRY(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        if (k == 2)
            TRY(MPI_Request_free(&reqs[1]));
        for (int i = 0; i < L; i++)
            if (in[i] != left * 7 + k + i)
                check_failed(__FILE__, __LINE__, "large message %d: element %d is %d, want %d", k, i, in[i], left * 7 + k + i);
        expect_status(&st, left, 150 + k, L, "a large message");
    }
    free(out);
    free(in);
    passed("large");
}

/* grequests: a generalized request completed by the program; MPI_Wait
 * gives its query function's status and calls its free function once;
 * MPI_Cancel calls its cancel function. */
static volatile int greq_frees;
static int greq_cancels, greq_complete = -1;

static int greq_query(void *extra, MPI_Status *st) {
    MPI_Status_set_source(st, *(int *)extra);
    MPI_Status_set_tag(st, 77);
    MPI_Status_set_cancelled(st, 0);
    return MPI_Status_set_elements(st, MPI_INT, 4);
}

static int greq_query_fails(void *extra, MPI_Status *st) {
    (void)extra;
    (void)st;
    return MPI_ERR_FILE;
}

static int greq_free(void *extra) {
    (void)extra;
    greq_frees++;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete) {
    (void)extra;
    greq_cancels++;
    greq_complete = complete;
    return MPI_SUCCESS;
}

static void grequests(void) {
    int who = 5, flag = -1, n = -1;
    MPI_Request req;
    MPI_Status st;
    TRY(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &who, &req));
    TRY(MPI_Test(&req, &flag, &st));
    EQ(flag, 0, "MPI_Test of a generalized request not completed");
    TRY(MPI_Cancel(&req));
    CHECK(greq_cancels == 1 && greq_complete == 0, "cancel: %d calls, complete %d", greq_cancels, greq_complete);
    TRY(MPI_Grequest_complete(req));
    TRY(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the generalized request");
    TRY(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 77 && n == 4, "the query's status: source %d tag %d count %d", st.MPI_SOURCE,
          st.MPI_TAG, n);
    EQ(greq_frees, 1, "the free function's calls after MPI_Wait");
    /* With no query function the status is empty. */
    TRY(MPI_Grequest_start(NULL, greq_free, NULL, NULL, &req));
    TRY(MPI_Grequest_complete(req));
    TRY(MPI_Waitall(1, &req, &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && greq_frees == 2, "an empty status (source %d), free ran %d times", st.MPI_SOURCE,
          greq_frees);
    /* Freed before it completes: the handle stays good for
     * MPI_Grequest_complete, after which free runs. */
    TRY(MPI_Grequest_start(NULL, greq_free, NULL, NULL, &req));
    MPI_Request kept = req;
    TRY(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL && greq_frees == 2, "MPI_Request_free: handle %#x, free ran %d times", MPI_Request_toint(req),
          greq_frees);
    TRY(MPI_Grequest_complete(kept));
    EQ(greq_frees, 3, "the free function's calls by the end of MPI_Grequest_complete of a freed request");
    RC(MPI_Grequest_complete(kept), MPI_ERR_REQUEST);
    /* A query's error in MPI_Waitall: MPI_ERR_IN_STATUS, the code in
     * the failed request's status. */
    MPI_Request two[2];
    MPI_Status sts[2];
    TRY(MPI_Grequest_start(greq_query_fails, NULL, NULL, NULL, &two[0]));
    TRY(MPI_Grequest_start(NULL, NULL, NULL, NULL, &two[1]));
    TRY(MPI_Grequest_complete(two[0]));
    TRY(MPI_Grequest_complete(two[1]));
    RC(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_ERR_FILE && sts[1].MPI_ERROR == MPI_SUCCESS, "the statuses' errors: %d and %d",
          sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    passed("grequests");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    rank = check_rank;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    /* Bsend needs a buffer: blocking and nonblocking use this one. */
    int bsize = 8 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    TRY(MPI_Buffer_attach(malloc(bsize), bsize));
    blocking();
    nonblocking();
    persistent();
    sendrecv();
    probe();
    wildcards();
    completion();
    requests();
    buffered();
    statuses();
    grequests();
    strided();
    large();
    TRY(MPI_Finalize());
    return 0;
}
