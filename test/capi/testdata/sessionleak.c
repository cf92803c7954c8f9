/* A process that exits with a session live has not finalized MPI: the
 * launcher must say so and end the job, not wait for it at its exit. */
#include "check.h"

int main(void) {
    MPI_Session s;
    TRY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    return 0;
}
