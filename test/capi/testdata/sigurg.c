/* A program's own SIGURG handler never runs for the library: Go's runtime
 * would preempt a goroutine that runs over 10 ms by sending its thread
 * SIGURG, which here is the program's (PETSc installs a handler for every
 * signal, and aborts). MPI_Reduce_local of 128 MiB runs longer than that
 * in Go, in the caller's thread; the library is built with asynchronous
 * preemption off, so no SIGURG comes. */
#include "check.h"
#include <signal.h>

static volatile sig_atomic_t caught;

static void on_urg(int sig) {
    (void)sig;
    caught++;
}

int main(int argc, char **argv) {
    enum { n = 16 << 20 };
    start(&argc, &argv);
    signal(SIGURG, on_urg);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    CHECK(a != NULL && b != NULL, "malloc of 2 x 128 MiB");
    for (int i = 0; i < n; i++)
        a[i] = b[i] = i;
    for (int k = 0; k < 4; k++)
        TRY(MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM));
    EQ((int)caught, 0, "SIGURGs the program's handler caught");
    CHECK(b[n - 1] == 5.0 * (n - 1), "the sums");
    free(a);
    free(b);
    passed("sigurg");
    TRY(MPI_Finalize());
    return 0;
}
