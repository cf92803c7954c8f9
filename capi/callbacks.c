/* Go cannot call C function pointers: these call the user's callbacks. */
#include <stdint.h>
#include "include/mpi.h"

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN void gompi_call_comm_errhandler(void *fn, uintptr_t comm, int code) {
    MPI_Comm c = (MPI_Comm)comm;
    ((MPI_Comm_errhandler_function *)fn)(&c, &code);
}

HIDDEN void gompi_call_user_op(void *fn, void *in, void *inout, int len, uintptr_t type) {
    MPI_Datatype t = (MPI_Datatype)type;
    ((MPI_User_function *)fn)(in, inout, &len, &t);
}
