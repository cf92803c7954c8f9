/* The forms a collective is run in by alltoallw.c and neighbor.c, and how
 * a call's request is finished. */
#ifndef GOMPI_TEST_FORMS_H
#define GOMPI_TEST_FORMS_H

#include "check.h"

enum form { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };
static const char *forms[] = {"blocking", "non-blocking", "persistent"};

/* complete finishes a non-blocking or persistent call's request; a
 * persistent one runs a second time into a cleared buffer. */
static inline void complete(enum form f, MPI_Request *req, int *recv, int n) {
    if (f == BLOCKING)
        return;
    if (f == PERSISTENT) {
        TRY(MPI_Start(req));
        TRY(MPI_Wait(req, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            recv[i] = -1;
        TRY(MPI_Start(req));
    }
    TRY(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (f == PERSISTENT)
        TRY(MPI_Request_free(req));
}

#endif
