/* Matched probes through the C library: Mprobe, Improbe, Mrecv, Imrecv
 * (and their _c forms), MPI_MESSAGE_NO_PROC, and the errors of a bad
 * message and of truncation. Runs on 2 or more ranks. */
#include "check.h"

static int rank, size;

/* check5 checks the 5 ints a rank sends: its rank times 10 plus 0..4. */
static void check5(const int *got, int from, const char *how) {
    for (int i = 0; i < 5; i++)
        CHECK(got[i] == from * 10 + i, "%s: element %d is %d (want %d)", how, i, got[i], from * 10 + i);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);

    int data[5], got[5];
    for (int i = 0; i < 5; i++)
        data[i] = rank * 10 + i;
    MPI_Message msg;
    MPI_Status st;
    int count;

    /* Every other rank sends to rank 0 on tags 1..4; rank 0 probes each
     * from any source and receives it through its message. */
    if (rank != 0) {
        for (int t = 1; t <= 4; t++)
            TRY(MPI_Send(data, 5, MPI_INT, 0, t, MPI_COMM_WORLD));
    } else {
        for (int k = 0; k < size - 1; k++) {
            TRY(MPI_Mprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &msg, &st));
            CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "MPI_Mprobe gave no message");
            CHECK(st.MPI_TAG == 1 && st.MPI_SOURCE > 0 && st.MPI_SOURCE < size, "probe status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            TRY(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == 5, "probed count %d", count);
            int from = st.MPI_SOURCE;
            TRY(MPI_Mrecv(got, 5, MPI_INT, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv leaves MPI_MESSAGE_NULL");
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 1, "received status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            check5(got, from, "mrecv");
        }
        for (int from = 1; from < size; from++) {
            int flag = 0;
            while (!flag)
                TRY(MPI_Improbe(from, 2, MPI_COMM_WORLD, &flag, &msg, &st));
            MPI_Request req;
            TRY(MPI_Imrecv(got, 5, MPI_INT, &msg, &req));
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv leaves MPI_MESSAGE_NULL");
            TRY(MPI_Wait(&req, &st));
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 2, "imrecv status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            check5(got, from, "imrecv");

            TRY(MPI_Mprobe(from, 3, MPI_COMM_WORLD, &msg, &st));
            TRY(MPI_Mrecv_c(got, 5, MPI_INT, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv_c");
            check5(got, from, "mrecv_c");

            TRY(MPI_Mprobe(from, 4, MPI_COMM_WORLD, &msg, &st));
            TRY(MPI_Imrecv_c(got, 5, MPI_INT, &msg, &req));
            TRY(MPI_Wait(&req, &st));
            check5(got, from, "imrecv_c");
        }
    }
    passed("mprobe mrecv improbe imrecv");

    /* Nothing is pending now: an Improbe finds nothing. */
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 1;
    TRY(MPI_Improbe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(!flag, "improbe of nothing");
    passed("improbe of nothing");

    /* A probe of MPI_PROC_NULL finds MPI_MESSAGE_NO_PROC, whose receive
     * returns at once. */
    TRY(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "probe of MPI_PROC_NULL: message %p source %d tag %d", (void *)msg, st.MPI_SOURCE, st.MPI_TAG);
    TRY(MPI_Mrecv(got, 5, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv of MPI_MESSAGE_NO_PROC");
    TRY(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0, "MPI_MESSAGE_NO_PROC's receive: source %d count %d", st.MPI_SOURCE, count);
    flag = 0;
    TRY(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe of MPI_PROC_NULL");
    MPI_Request req;
    TRY(MPI_Imrecv(got, 5, MPI_INT, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv of MPI_MESSAGE_NO_PROC");
    TRY(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "wait for MPI_MESSAGE_NO_PROC's receive");
    passed("message no proc");

    /* Errors: a receive of MPI_MESSAGE_NULL, and of a message longer than
     * the buffer. Mrecv names no communicator: MPI_COMM_SELF's handler
     * takes its errors. */
    msg = MPI_MESSAGE_NULL;
    RC(MPI_Mrecv(got, 5, MPI_INT, &msg, &st), MPI_ERR_REQUEST);
    RC(MPI_Imrecv(got, 5, MPI_INT, &msg, &req), MPI_ERR_REQUEST);
    if (rank == 1)
        TRY(MPI_Send(data, 5, MPI_INT, 0, 6, MPI_COMM_WORLD));
    if (rank == 0) {
        TRY(MPI_Mprobe(1, 6, MPI_COMM_WORLD, &msg, &st));
        RC(MPI_Mrecv(got, 2, MPI_INT, &msg, &st), MPI_ERR_TRUNCATE);
        /* gompi's contract (MPICH leaves the handle): the message is
         * received, truncated, and its handle gone. */
        CHECK(msg == MPI_MESSAGE_NULL, "a truncated receive still takes the message");
    }
    RC(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &msg, &st), MPI_ERR_RANK);
    passed("mprobe errors");

    TRY(MPI_Finalize());
    return 0;
}
