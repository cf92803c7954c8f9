/* Go cannot call C function pointers: these call the user's callbacks. */
#include <stdint.h>
#include <stdlib.h>
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

HIDDEN void gompi_call_user_op_c(void *fn, void *in, void *inout, int64_t len, uintptr_t type) {
    MPI_Datatype t = (MPI_Datatype)type;
    MPI_Count n = len;
    ((MPI_User_function_c *)fn)(in, inout, &n, &t);
}

/* Attribute callbacks. The functions, values and extra states are
 * pointer-sized integers to Go: a value may be any integer cast to void*,
 * which Go must not hold as a pointer. */
HIDDEN int gompi_call_comm_copy(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag) {
    void *o = 0;
    int rc = ((MPI_Comm_copy_attr_function *)(void *)fn)((MPI_Comm)comm, keyval, (void *)extra, (void *)in, &o, flag);
    *out = (uintptr_t)o;
    return rc;
}

HIDDEN int gompi_call_comm_delete(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t value, uintptr_t extra) {
    return ((MPI_Comm_delete_attr_function *)(void *)fn)((MPI_Comm)comm, keyval, (void *)value, (void *)extra);
}

HIDDEN int gompi_call_type_copy(uintptr_t fn, uintptr_t type, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag) {
    void *o = 0;
    int rc = ((MPI_Type_copy_attr_function *)(void *)fn)((MPI_Datatype)type, keyval, (void *)extra, (void *)in, &o, flag);
    *out = (uintptr_t)o;
    return rc;
}

HIDDEN int gompi_call_type_delete(uintptr_t fn, uintptr_t type, int keyval, uintptr_t value, uintptr_t extra) {
    return ((MPI_Type_delete_attr_function *)(void *)fn)((MPI_Datatype)type, keyval, (void *)value, (void *)extra);
}

/* A generalized request's functions. */
HIDDEN int gompi_call_grequest_query(uintptr_t fn, uintptr_t extra, MPI_Status *st) {
    return ((MPI_Grequest_query_function *)(void *)fn)((void *)extra, st);
}

HIDDEN int gompi_call_grequest_free(uintptr_t fn, uintptr_t extra) {
    return ((MPI_Grequest_free_function *)(void *)fn)((void *)extra);
}

HIDDEN int gompi_call_grequest_cancel(uintptr_t fn, uintptr_t extra, int complete) {
    return ((MPI_Grequest_cancel_function *)(void *)fn)((void *)extra, complete);
}

HIDDEN void gompi_call_session_errhandler(void *fn, uintptr_t session, int code) {
    MPI_Session s = (MPI_Session)session;
    ((MPI_Session_errhandler_function *)fn)(&s, &code);
}

HIDDEN void gompi_call_file_errhandler(void *fn, uintptr_t file, int code) {
    MPI_File f = (MPI_File)file;
    ((MPI_File_errhandler_function *)fn)(&f, &code);
}

/* Sessions keep the runtime past MPI_Finalize; it ends when the process
 * does. */
extern void gompiEndAtExit(void);

static void end_at_exit(void) { gompiEndAtExit(); }

HIDDEN void gompi_end_at_exit(void) { atexit(end_at_exit); }
