/* Error handling through the C library: MPI_ERRORS_RETURN returns the
 * right class for each bad argument; a user error handler written in C
 * is called with the communicator and the code; MPI_Comm_call_errhandler
 * calls it too; the file functions raise on MPI_FILE_NULL's handler. */
#include "check.h"

static MPI_Comm handled;  /* the communicator the user handler is set on */
static int calls, last_code;
static int wrong_comm;

static void handler(MPI_Comm *comm, int *code, ...) {
    calls++;
    last_code = *code;
    if (*comm != handled)
        wrong_comm++;
}

static int file_calls, file_code, wrong_file;

static void file_handler(MPI_File *file, int *code, ...) {
    file_calls++;
    file_code = *code;
    if (*file != MPI_FILE_NULL)
        wrong_file++;
}

/* files checks that the file functions raise on MPI_FILE_NULL's handler,
 * MPI_ERRORS_RETURN at first, and not on a communicator's: with the
 * communicators' handlers fatal, MPI_File_open returns its error, as a
 * program that falls back to POSIX I/O needs. */
static void files(void) {
    const char *name = "gompi-errhandler-no-file";
    MPI_File fh = MPI_FILE_NULL;
    MPI_Errhandler feh, got;
    int class = -1;
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    TRY(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL's first handler is %#x, want MPI_ERRORS_RETURN",
          MPI_Errhandler_toint(got));
    RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_UNSUPPORTED_OPERATION);
    RC(MPI_File_delete(name, MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_OPERATION);

    /* A user file handler is called with MPI_FILE_NULL and the code. */
    TRY(MPI_File_create_errhandler(file_handler, &feh));
    TRY(MPI_File_set_errhandler(MPI_FILE_NULL, feh));
    RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_UNSUPPORTED_OPERATION);
    EQ(file_calls, 1, "calls of the file handler after MPI_File_open");
    TRY(MPI_Error_class(file_code, &class));
    EQ(class, MPI_ERR_UNSUPPORTED_OPERATION, "the class of the code the file handler got");
    TRY(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    EQ(file_calls, 2, "calls of the file handler after MPI_File_call_errhandler");
    EQ(file_code, MPI_ERR_IO, "the code MPI_File_call_errhandler passed");
    RC(MPI_File_set_errhandler(MPI_File_fromint(0x7654321), MPI_ERRORS_RETURN), MPI_ERR_FILE);
    EQ(file_calls, 3, "calls of the file handler after an invalid file handle");
    TRY(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == feh, "MPI_File_get_errhandler gave %#x, want %#x", MPI_Errhandler_toint(got), MPI_Errhandler_toint(feh));
    TRY(MPI_Errhandler_free(&got));
    TRY(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    TRY(MPI_Errhandler_free(&feh));
    RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_UNSUPPORTED_OPERATION);
    EQ(file_calls, 3, "calls of the file handler once MPI_ERRORS_RETURN replaced it");
    EQ(wrong_file, 0, "calls of the file handler with another file than MPI_FILE_NULL");
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    passed("file-errors");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    int rank = check_rank, size, v = 1, buf[8] = {0};
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int peer = (rank + 1) % size;

    /* MPI_ERRORS_RETURN (start set it on MPI_COMM_WORLD and MPI_COMM_SELF). */
    RC(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    RC(MPI_Send(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    RC(MPI_Send(&v, 1, MPI_INT, peer, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    RC(MPI_Recv(&v, 1, MPI_INT, peer, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    RC(MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    RC(MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_Comm_fromint(0x7654321)), MPI_ERR_COMM);
    RC(MPI_Send(&v, -1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    RC(MPI_Send(&v, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    RC(MPI_Allreduce(&v, buf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Bcast(&v, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    RC(MPI_Bsend(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER); /* no buffer attached */
    MPI_Request bad = MPI_Request_fromint(0x7654321);
    RC(MPI_Wait(&bad, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    TRY(MPI_Error_string(MPI_ERR_RANK, s, &n));
    CHECK(n == (int)strlen(s) && strstr(s, "rank") != NULL, "MPI_Error_string(MPI_ERR_RANK) is \"%s\" (%d)", s, n);
    /* The class's text goes on with what the last error of the class said. */
    CHECK(strstr(s, "in MPI_Send: ") != NULL && strstr(s, "-7") != NULL, "MPI_Error_string(MPI_ERR_RANK) does not tell of the last send's rank -7: \"%s\"", s);
    TRY(MPI_Error_string(MPI_ERR_REQUEST, s, &n));
    CHECK(strstr(s, "in MPI_Wait: ") != NULL, "MPI_Error_string(MPI_ERR_REQUEST) does not tell of MPI_Wait: \"%s\"", s);
    TRY(MPI_Error_string(MPI_ERR_WIN, s, &n));
    CHECK(strchr(s, ';') == NULL, "MPI_Error_string(MPI_ERR_WIN) tells of an error that was not: \"%s\"", s);
    int class = -1;
    TRY(MPI_Error_class(MPI_ERR_TRUNCATE, &class));
    EQ(class, MPI_ERR_TRUNCATE, "MPI_Error_class of a class");
    passed("errors-return");

    /* A truncated receive: blocking, waited and in a Waitall, whose
     * statuses say which request failed. */
    MPI_Status st, sts[2];
    MPI_Request reqs[2];
    int big[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    TRY(MPI_Send(big, 8, MPI_INT, peer, 1, MPI_COMM_WORLD));
    RC(MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    TRY(MPI_Send(big, 8, MPI_INT, peer, 2, MPI_COMM_WORLD));
    TRY(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &reqs[0]));
    RC(MPI_Wait(&reqs[0], &st), MPI_ERR_TRUNCATE);
    TRY(MPI_Send(big, 8, MPI_INT, peer, 3, MPI_COMM_WORLD));
    TRY(MPI_Send(big, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
    TRY(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &reqs[0]));
    TRY(MPI_Irecv(buf + 4, 4, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &reqs[1]));
    RC(MPI_Waitall(2, reqs, sts), MPI_ERR_IN_STATUS);
    EQ(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE, "the status of the truncated receive in MPI_Waitall");
    EQ(sts[1].MPI_ERROR, MPI_SUCCESS, "the status of the whole receive in MPI_Waitall");
    /* Waitsome and Testsome write the statuses of the requests they
     * complete in order, the failed one's MPI_ERROR too. */
    for (int test = 0; test < 2; test++) {
        int outcount = -1, indices[2] = {-1, -1};
        TRY(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &reqs[0])); /* sent after the barrier */
        TRY(MPI_Irecv(buf + 4, 4, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &reqs[1]));
        TRY(MPI_Send(big, 8, MPI_INT, peer, 6, MPI_COMM_WORLD));
        sts[0].MPI_ERROR = sts[1].MPI_ERROR = -1;
        if (test)
            do
                RC(MPI_Testsome(2, reqs, &outcount, indices, sts), outcount ? MPI_ERR_IN_STATUS : MPI_SUCCESS);
            while (outcount == 0);
        else
            RC(MPI_Waitsome(2, reqs, &outcount, indices, sts), MPI_ERR_IN_STATUS);
        EQ(outcount, 1, "the requests MPI_Waitsome or MPI_Testsome completed");
        EQ(indices[0], 1, "the request MPI_Waitsome or MPI_Testsome completed");
        EQ(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE, "the status of the truncated receive in MPI_Waitsome or MPI_Testsome");
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        TRY(MPI_Send(big, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
        TRY(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    }
    passed("truncate");

    /* A user handler on a duplicate of MPI_COMM_WORLD, which stays called
     * after its handle is freed: the communicator still uses it. */
    MPI_Errhandler eh, got;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &handled));
    TRY(MPI_Comm_create_errhandler(handler, &eh));
    CHECK(MPI_Errhandler_toint(eh) >= 4096, "a user error handler's handle is %d, in the predefined range",
          MPI_Errhandler_toint(eh));
    TRY(MPI_Comm_set_errhandler(handled, eh));
    TRY(MPI_Comm_get_errhandler(handled, &got));
    CHECK(got == eh, "MPI_Comm_get_errhandler gave %#x, want %#x", MPI_Errhandler_toint(got), MPI_Errhandler_toint(eh));
    int rc = MPI_Send(&v, 1, MPI_INT, size, 0, handled);
    TRY(MPI_Error_class(rc, &class));
    EQ(class, MPI_ERR_RANK, "the class the failed call returned after the user handler ran");
    EQ(calls, 1, "calls of the user handler");
    TRY(MPI_Error_class(last_code, &class));
    EQ(class, MPI_ERR_RANK, "the class of the code the user handler got");
    EQ(wrong_comm, 0, "calls of the user handler with another communicator");
    TRY(MPI_Comm_call_errhandler(handled, MPI_ERR_OTHER));
    EQ(calls, 2, "calls of the user handler after MPI_Comm_call_errhandler");
    EQ(last_code, MPI_ERR_OTHER, "the code MPI_Comm_call_errhandler passed");
    /* A request's error goes to its communicator's handler, with that
     * communicator, though MPI_Wait names none. */
    TRY(MPI_Send(big, 8, MPI_INT, rank, 7, handled));
    TRY(MPI_Irecv(buf, 4, MPI_INT, rank, 7, handled, &reqs[0]));
    RC(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    EQ(calls, 3, "calls of the user handler after a request's error");
    /* So does MPI_Startall's. */
    TRY(MPI_Recv_init(buf, 4, MPI_INT, rank, 8, handled, &reqs[0]));
    TRY(MPI_Start(&reqs[0]));
    RC(MPI_Startall(1, reqs), MPI_ERR_REQUEST);
    EQ(calls, 4, "calls of the user handler after MPI_Startall's error");
    TRY(MPI_Send(&v, 1, MPI_INT, rank, 8, handled));
    TRY(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    TRY(MPI_Request_free(&reqs[0]));
    EQ(wrong_comm, 0, "calls of the user handler with another communicator than the request's");
    /* The handler does not leak to MPI_COMM_WORLD. */
    RC(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EQ(calls, 4, "calls of the user handler by another communicator's error");
    /* MPI_Comm_get_errhandler gave a handle of its own to free. */
    TRY(MPI_Errhandler_free(&got));
    TRY(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle");
    RC(MPI_Send(&v, 1, MPI_INT, size, 0, handled), MPI_ERR_RANK);
    EQ(calls, 5, "calls of the user handler after its handles were freed");
    RC(MPI_Errhandler_free(&got), MPI_ERR_ERRHANDLER); /* a third free: no handle is left */
    RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER);
    passed("user-handler");

    /* MPI_Comm_call_errhandler on a communicator with MPI_ERRORS_RETURN
     * returns. */
    TRY(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    TRY(MPI_Comm_free(&handled));
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    passed("call-errhandler");
    files();
    TRY(MPI_Finalize());
    return 0;
}
