/* What the test programs share. A program starts with start(), which
 * sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF so that
 * TRY can say which call failed; a failed check prints "FAIL rank R:
 * file:line: what" on stderr and ends the job with MPI_Abort. Each part
 * that passes prints "ok <part> rank R", the line the Go test looks for. */
#ifndef GOMPI_TEST_CHECK_H
#define GOMPI_TEST_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_rank = -1;

static void check_failed(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "FAIL rank %d: %s:%d: ", check_rank, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* CHECK fails with the message when cond is false. */
#define CHECK(cond, ...)                                      \
    do {                                                      \
        if (!(cond))                                          \
            check_failed(__FILE__, __LINE__, __VA_ARGS__);    \
    } while (0)

/* EQ checks an integer result. */
#define EQ(got, want, what)                                                            \
    do {                                                                               \
        long long got_ = (long long)(got), want_ = (long long)(want);                  \
        if (got_ != want_)                                                             \
            check_failed(__FILE__, __LINE__, "%s: got %lld, want %lld", (what), got_, want_); \
    } while (0)

/* TRY fails unless call returns MPI_SUCCESS, naming the call and the
 * error. */
#define TRY(call)                                                                          \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != MPI_SUCCESS) {                                                          \
            char s_[MPI_MAX_ERROR_STRING] = "";                                            \
            int n_ = 0;                                                                    \
            MPI_Error_string(rc_, s_, &n_);                                                \
            check_failed(__FILE__, __LINE__, "%s returned %d (%s)", #call, rc_, s_);       \
        }                                                                                  \
    } while (0)

/* RC checks that call fails with error class want. */
#define RC(call, want)                                                                     \
    do {                                                                                   \
        int rc_ = (call), class_ = -1;                                                     \
        MPI_Error_class(rc_, &class_);                                                     \
        if (class_ != (want))                                                              \
            check_failed(__FILE__, __LINE__, "%s returned %d of class %d, want class %s (%d)", \
                         #call, rc_, class_, #want, (want));                               \
    } while (0)

static inline void start(int *argc, char ***argv) {
    TRY(MPI_Init(argc, argv));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &check_rank));
}

static inline void passed(const char *part) {
    printf("ok %s rank %d\n", part, check_rank);
    fflush(stdout);
}

#endif
