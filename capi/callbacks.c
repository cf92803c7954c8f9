/* Go cannot call C function pointers: these call the user's callbacks,
 * with the thread's caller slot empty (caller.h). */
#include <stdint.h>
#include <stdlib.h>
#include "include/mpi.h"
#include "caller.h"

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN void gompi_call_comm_errhandler(void *fn, uintptr_t comm, int code) {
    MPI_Comm c = (MPI_Comm)comm;
    GOMPI_CALLBACK(((MPI_Comm_errhandler_function *)fn)(&c, &code));
}

HIDDEN void gompi_call_user_op(void *fn, void *in, void *inout, int len, uintptr_t type) {
    MPI_Datatype t = (MPI_Datatype)type;
    GOMPI_CALLBACK(((MPI_User_function *)fn)(in, inout, &len, &t));
}

HIDDEN void gompi_call_user_op_c(void *fn, void *in, void *inout, int64_t len, uintptr_t type) {
    MPI_Datatype t = (MPI_Datatype)type;
    MPI_Count n = len;
    GOMPI_CALLBACK(((MPI_User_function_c *)fn)(in, inout, &n, &t));
}

/* Attribute callbacks. The functions, values and extra states are
 * pointer-sized integers to Go: a value may be any integer cast to void*,
 * which Go must not hold as a pointer. */
HIDDEN int gompi_call_comm_copy(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag) {
    void *o = 0;
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Comm_copy_attr_function *)(void *)fn)((MPI_Comm)comm, keyval, (void *)extra,
                                                                    (void *)in, &o, flag));
    *out = (uintptr_t)o;
    return rc;
}

HIDDEN int gompi_call_comm_delete(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t value, uintptr_t extra) {
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Comm_delete_attr_function *)(void *)fn)((MPI_Comm)comm, keyval, (void *)value,
                                                                      (void *)extra));
    return rc;
}

HIDDEN int gompi_call_type_copy(uintptr_t fn, uintptr_t type, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag) {
    void *o = 0;
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Type_copy_attr_function *)(void *)fn)((MPI_Datatype)type, keyval, (void *)extra,
                                                                    (void *)in, &o, flag));
    *out = (uintptr_t)o;
    return rc;
}

HIDDEN int gompi_call_type_delete(uintptr_t fn, uintptr_t type, int keyval, uintptr_t value, uintptr_t extra) {
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Type_delete_attr_function *)(void *)fn)((MPI_Datatype)type, keyval, (void *)value,
                                                                      (void *)extra));
    return rc;
}

/* A generalized request's functions. */
HIDDEN int gompi_call_grequest_query(uintptr_t fn, uintptr_t extra, MPI_Status *st) {
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Grequest_query_function *)(void *)fn)((void *)extra, st));
    return rc;
}

HIDDEN int gompi_call_grequest_free(uintptr_t fn, uintptr_t extra) {
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Grequest_free_function *)(void *)fn)((void *)extra));
    return rc;
}

HIDDEN int gompi_call_grequest_cancel(uintptr_t fn, uintptr_t extra, int complete) {
    int rc;
    GOMPI_CALLBACK(rc = ((MPI_Grequest_cancel_function *)(void *)fn)((void *)extra, complete));
    return rc;
}

HIDDEN void gompi_call_session_errhandler(void *fn, uintptr_t session, int code) {
    MPI_Session s = (MPI_Session)session;
    GOMPI_CALLBACK(((MPI_Session_errhandler_function *)fn)(&s, &code));
}

HIDDEN void gompi_call_file_errhandler(void *fn, uintptr_t file, int code) {
    MPI_File f = (MPI_File)file;
    GOMPI_CALLBACK(((MPI_File_errhandler_function *)fn)(&f, &code));
}

/* Sessions keep the runtime past MPI_Finalize; it ends when the process
 * does. */
extern void gompiEndAtExit(void);

static void end_at_exit(void) { gompiEndAtExit(); }

HIDDEN void gompi_end_at_exit(void) { atexit(end_at_exit); }
