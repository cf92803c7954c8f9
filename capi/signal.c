/* A signal handler that calls MPI may run on a thread that is inside an
 * MPI call, in Go: Go cannot be entered again there (the runtime crashes
 * with SIGSEGV), as Charm++'s SIGTERM handler, which calls MPI_Abort, did
 * when a launcher stopped its job. Such a nested call is seen by the
 * caller slot (caller.h), which only the library's outer call sets: the
 * functions C answers (a predefined communicator's rank and size, tests
 * and probes that find nothing, MPI_Initialized and MPI_Finalized) run,
 * MPI_Abort ends the process with the status it asks for, and any other
 * ends it with status 70, saying why. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "include/mpi.h"
#include "caller.h"

__thread int gompi_nested __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* gompi_say writes s to stderr, as a signal handler may. */
__attribute__((visibility("hidden"))) void gompi_say(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void say_int(int v) {
    char buf[16], *p = buf + sizeof buf;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    *--p = 0;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    gompi_say(p);
}

/* Those whose PMPI_ entry point is written in C (gate.c, fork.c). */
static int answered_in_c(const char *fn) {
    static const char *const names[] = {"MPI_Comm_rank", "MPI_Comm_size", "MPI_Test",      "MPI_Testany",
                                        "MPI_Testall",   "MPI_Testsome",  "MPI_Iprobe",    "MPI_Initialized",
                                        "MPI_Finalized"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(fn, names[i]) == 0)
            return 1;
    return 0;
}

__attribute__((visibility("hidden"))) void gompi_nested_call(const char *fn) {
    gompi_say("gompi: ");
    gompi_say(fn);
    gompi_say(" called while this thread was inside another MPI call, as from a signal handler: the "
              "library cannot be entered there (MPI functions are not async-signal-safe), so this "
              "process exits with status 70\n");
    _exit(70);
}

__attribute__((visibility("hidden"))) int gompi_unusual_call(const char *fn) {
    if (gompi_forked) {
        gompi_forked_call(fn); /* returns for what C answers */
        return gompi_nested;
    }
    if (!answered_in_c(fn))
        gompi_nested_call(fn);
    int was = gompi_nested;
    gompi_nested = 1;
    return was;
}

/* AbortStatus's rule (internal/rte): the code where it fits a status. */
static int abort_status(int code) {
    if (code >= 0 && code <= 255)
        return code;
    return (code & 0xff) != 0 ? code & 0xff : 1;
}

#pragma weak MPI_Abort
int MPI_Abort(MPI_Comm comm, int errorcode) {
    if (__builtin_expect(gompi_caller != 0 && !gompi_forked, 0)) {
        int status = abort_status(errorcode);
        gompi_say("gompi: MPI_Abort called with code ");
        say_int(errorcode);
        gompi_say(" while this thread was inside another MPI call, as from a signal handler: the process "
                  "exits with status ");
        say_int(status);
        gompi_say(" at once, and the launcher stops the job when it sees it\n");
        _exit(status);
    }
    GOMPI_CALL(int, PMPI_Abort(comm, errorcode));
}
