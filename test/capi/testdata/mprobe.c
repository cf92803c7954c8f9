/* Matched probes through the C library: Mprobe, Improbe, Mrecv, Imrecv
 * (and their _c forms), MPI_MESSAGE_NO_PROC, and the errors of a bad
 * message and of truncation. Runs on 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "mprobe: rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                  \
        }                                                                  \
    } while (0)

static void ok(const char *what) {
    if (rank == 0)
        printf("ok %s\n", what);
}

static int class_of(int err) {
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

/* check5 checks the 5 ints a rank sends: its rank times 10 plus 0..4. */
static void check5(const int *got, int from, const char *how) {
    for (int i = 0; i < 5; i++)
        CHECK(got[i] == from * 10 + i, "%s: element %d is %d (want %d)", how, i, got[i], from * 10 + i);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
            MPI_Send(data, 5, MPI_INT, 0, t, MPI_COMM_WORLD);
    } else {
        for (int k = 0; k < size - 1; k++) {
            CHECK(MPI_Mprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "MPI_Mprobe");
            CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "MPI_Mprobe gave no message");
            CHECK(st.MPI_TAG == 1 && st.MPI_SOURCE > 0 && st.MPI_SOURCE < size, "probe status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == 5, "probed count %d", count);
            int from = st.MPI_SOURCE;
            CHECK(MPI_Mrecv(got, 5, MPI_INT, &msg, &st) == MPI_SUCCESS, "MPI_Mrecv");
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv leaves MPI_MESSAGE_NULL");
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 1, "received status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            check5(got, from, "mrecv");
        }
        for (int from = 1; from < size; from++) {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Improbe(from, 2, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS, "MPI_Improbe");
            MPI_Request req;
            CHECK(MPI_Imrecv(got, 5, MPI_INT, &msg, &req) == MPI_SUCCESS, "MPI_Imrecv");
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv leaves MPI_MESSAGE_NULL");
            CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "wait for MPI_Imrecv");
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 2, "imrecv status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            check5(got, from, "imrecv");

            CHECK(MPI_Mprobe(from, 3, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "MPI_Mprobe");
            CHECK(MPI_Mrecv_c(got, 5, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL, "MPI_Mrecv_c");
            check5(got, from, "mrecv_c");

            CHECK(MPI_Mprobe(from, 4, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "MPI_Mprobe");
            CHECK(MPI_Imrecv_c(got, 5, MPI_INT, &msg, &req) == MPI_SUCCESS, "MPI_Imrecv_c");
            CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "wait for MPI_Imrecv_c");
            check5(got, from, "imrecv_c");
        }
    }
    ok("mprobe mrecv improbe imrecv");

    /* Nothing is pending now: an Improbe finds nothing. */
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = 1;
    CHECK(MPI_Improbe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS && !flag, "improbe of nothing");
    ok("improbe of nothing");

    /* A probe of MPI_PROC_NULL finds MPI_MESSAGE_NO_PROC, whose receive
     * returns at once. */
    CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "MPI_Mprobe of MPI_PROC_NULL");
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "probe of MPI_PROC_NULL: message %p source %d tag %d", (void *)msg, st.MPI_SOURCE, st.MPI_TAG);
    CHECK(MPI_Mrecv(got, 5, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL, "MPI_Mrecv of MPI_MESSAGE_NO_PROC");
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0, "MPI_MESSAGE_NO_PROC's receive: source %d count %d", st.MPI_SOURCE, count);
    flag = 0;
    CHECK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS && flag && msg == MPI_MESSAGE_NO_PROC,
          "MPI_Improbe of MPI_PROC_NULL");
    MPI_Request req;
    CHECK(MPI_Imrecv(got, 5, MPI_INT, &msg, &req) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL, "MPI_Imrecv of MPI_MESSAGE_NO_PROC");
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL, "wait for MPI_MESSAGE_NO_PROC's receive");
    ok("message no proc");

    /* Errors: a receive of MPI_MESSAGE_NULL, and of a message longer than
     * the buffer. Mrecv names no communicator: MPI_COMM_SELF's handler
     * takes its errors. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    msg = MPI_MESSAGE_NULL;
    CHECK(class_of(MPI_Mrecv(got, 5, MPI_INT, &msg, &st)) == MPI_ERR_REQUEST, "MPI_Mrecv of MPI_MESSAGE_NULL: MPI_ERR_REQUEST");
    CHECK(class_of(MPI_Imrecv(got, 5, MPI_INT, &msg, &req)) == MPI_ERR_REQUEST, "MPI_Imrecv of MPI_MESSAGE_NULL: MPI_ERR_REQUEST");
    if (rank == 1)
        MPI_Send(data, 5, MPI_INT, 0, 6, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(MPI_Mprobe(1, 6, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "MPI_Mprobe");
        CHECK(class_of(MPI_Mrecv(got, 2, MPI_INT, &msg, &st)) == MPI_ERR_TRUNCATE, "MPI_Mrecv of 5 ints into 2: MPI_ERR_TRUNCATE");
        /* gompi's contract (MPICH leaves the handle): the message is
         * received, truncated, and its handle gone. */
        CHECK(msg == MPI_MESSAGE_NULL, "a truncated receive still takes the message");
    }
    CHECK(class_of(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &msg, &st)) == MPI_ERR_RANK, "MPI_Mprobe of rank %d: MPI_ERR_RANK", size);
    ok("mprobe errors");

    MPI_Finalize();
    return 0;
}
