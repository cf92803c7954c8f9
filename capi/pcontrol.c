/* MPI_Pcontrol is variadic, which Go cannot export: C takes the level and
 * hands it to Go. */
#include <pthread.h>
#include "include/mpi.h"
#include "caller.h"

extern int gompiPcontrol(int level);

int PMPI_Pcontrol(const int level, ...) { return gompiPcontrol(level); }

#pragma weak MPI_Pcontrol
int MPI_Pcontrol(const int level, ...) { GOMPI_CALL(int, PMPI_Pcontrol(level)); }

/* The thread that called MPI_Init, for MPI_Is_thread_main. */
static pthread_t main_thread;

__attribute__((visibility("hidden"))) void gompi_note_main_thread(void) { main_thread = pthread_self(); }

__attribute__((visibility("hidden"))) int gompi_is_main_thread(void) {
    return pthread_equal(main_thread, pthread_self()) != 0;
}
