/* Go's runtime starts when the library loads, and a child that fork()
 * makes has only the thread that called it: the runtime's other threads
 * are gone, with the locks they held, and the child's first call into Go
 * may hang. The child is marked, and its MPI calls end it saying why,
 * but for MPI_Initialized and MPI_Finalized, which a library's exit
 * handler may ask: they answer in C from the state Go leaves here. A
 * child that calls exec or _exit, as posix_spawn and system() do, is not
 * concerned. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "include/mpi.h"
#include "caller.h"

__attribute__((visibility("hidden"))) int gompi_forked;

/* gompi_world_model is the World Model's state, which Go sets: 0 before
 * MPI_Init, 1 running, 2 finalized (capi/session.go's worldNone...). */
__attribute__((visibility("hidden"))) int gompi_world_model;

int gompi_go_PMPI_Initialized(int *flag);
int gompi_go_PMPI_Finalized(int *flag);

int PMPI_Initialized(int *flag) {
    if ((gompi_forked || gompi_nested) && flag != NULL) {
        *flag = __atomic_load_n(&gompi_world_model, __ATOMIC_ACQUIRE) != 0;
        return MPI_SUCCESS;
    }
    return gompi_go_PMPI_Initialized(flag);
}

int PMPI_Finalized(int *flag) {
    if ((gompi_forked || gompi_nested) && flag != NULL) {
        *flag = __atomic_load_n(&gompi_world_model, __ATOMIC_ACQUIRE) == 2;
        return MPI_SUCCESS;
    }
    return gompi_go_PMPI_Finalized(flag);
}

static void child(void) { gompi_forked = 1; }

__attribute__((constructor)) static void gompi_mark_forks(void) { pthread_atfork(NULL, NULL, child); }

__attribute__((visibility("hidden"))) void gompi_forked_call(const char *fn) {
    if (strcmp(fn, "MPI_Initialized") == 0 || strcmp(fn, "MPI_Finalized") == 0)
        return; /* answered in C */
    gompi_say("gompi: ");
    gompi_say(fn);
    gompi_say(" called in a child process that fork() made: the MPI library's Go runtime does not survive "
              "fork() without exec, so this process exits with status 70 (start a program with posix_spawn, "
              "or exec one in the child)\n");
    _exit(70);
}
