/* Handles, versions and the environment through the C library: every
 * MPI_<handle>_toint and _fromint round-trips predefined and user
 * handles, user handles lie outside the predefined range, the version
 * and ABI queries answer what the header says, and a function gompi
 * lacks returns MPI_ERR_UNSUPPORTED_OPERATION. Also run alone, as a
 * singleton. */
#include <pthread.h>
#include <stdint.h>

#include "check.h"

/* ROUND checks that a handle converted to an int and back is itself;
 * USER that a user handle is outside the predefined range too. */
#define ROUND(got, h) CHECK((got) == (h), "%s is not %s", #got, #h)
#define USER(toint, h) CHECK((toint) >= 4096, "user handle %s is %d, in the predefined range", #h, (toint))

/* early is MPI_Wtime read by a constructor, before main and before the
 * library's Go start-up may have run: the time in the past is the same
 * for every read of the process's life. */
static double early;
__attribute__((constructor)) static void read_early(void) { early = MPI_Wtime(); }

/* noop is an operation never called. */
static void noop(void *in, void *inout, int *len, MPI_Datatype *dt) {}

static void handles(void) {
    ROUND(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)), MPI_COMM_WORLD);
    ROUND(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)), MPI_COMM_SELF);
    ROUND(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_NULL)), MPI_COMM_NULL);
    EQ(MPI_Comm_toint(MPI_COMM_WORLD), 0x101, "MPI_Comm_toint(MPI_COMM_WORLD)");
    ROUND(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
    ROUND(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_ARE_FATAL)), MPI_ERRORS_ARE_FATAL);
    ROUND(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)), MPI_FILE_NULL);
    ROUND(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_EMPTY)), MPI_GROUP_EMPTY);
    ROUND(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_NULL)), MPI_GROUP_NULL);
    ROUND(MPI_Info_fromint(MPI_Info_toint(MPI_INFO_NULL)), MPI_INFO_NULL);
    ROUND(MPI_Info_fromint(MPI_Info_toint(MPI_INFO_ENV)), MPI_INFO_ENV);
    ROUND(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NULL)), MPI_MESSAGE_NULL);
    ROUND(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
    ROUND(MPI_Op_fromint(MPI_Op_toint(MPI_SUM)), MPI_SUM);
    ROUND(MPI_Op_fromint(MPI_Op_toint(MPI_MAXLOC)), MPI_MAXLOC);
    ROUND(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)), MPI_REQUEST_NULL);
    ROUND(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)), MPI_SESSION_NULL);
    ROUND(MPI_Type_fromint(MPI_Type_toint(MPI_INT)), MPI_INT);
    ROUND(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)), MPI_DOUBLE);
    EQ(MPI_Type_toint(MPI_INT), 0x209, "MPI_Type_toint(MPI_INT)");
    ROUND(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)), MPI_WIN_NULL);

    MPI_Comm dup;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ROUND(MPI_Comm_fromint(MPI_Comm_toint(dup)), dup);
    USER(MPI_Comm_toint(dup), dup);
    MPI_Datatype pair;
    TRY(MPI_Type_contiguous_c(2, MPI_INT, &pair));
    ROUND(MPI_Type_fromint(MPI_Type_toint(pair)), pair);
    USER(MPI_Type_toint(pair), pair);
    MPI_Op op;
    TRY(MPI_Op_create(noop, 1, &op));
    ROUND(MPI_Op_fromint(MPI_Op_toint(op)), op);
    USER(MPI_Op_toint(op), op);
    MPI_Request req;
    int v = 0;
    TRY(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &req));
    ROUND(MPI_Request_fromint(MPI_Request_toint(req)), req);
    USER(MPI_Request_toint(req), req);
    MPI_Info info;
    TRY(MPI_Abi_get_info(&info));
    ROUND(MPI_Info_fromint(MPI_Info_toint(info)), info);
    USER(MPI_Info_toint(info), info);
    TRY(MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_SELF));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    TRY(MPI_Op_free(&op));
    TRY(MPI_Type_free(&pair));
    TRY(MPI_Comm_free(&dup));
    passed("handles");
}

/* datatypes: names, extents and addresses. */
static void datatypes(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int n = 0;
    TRY(MPI_Type_get_name(MPI_DOUBLE, name, &n));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && n == 10, "MPI_Type_get_name(MPI_DOUBLE) is \"%s\" (%d)", name, n);
    /* MPI 4.1 names the null handles. */
    TRY(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &n));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0, "MPI_Type_get_name(MPI_DATATYPE_NULL) is \"%s\"", name);
    /* A program may rename a predefined type. */
    TRY(MPI_Type_set_name(MPI_DOUBLE, "my double"));
    TRY(MPI_Type_get_name(MPI_DOUBLE, name, &n));
    CHECK(strcmp(name, "my double") == 0 && n == 9, "MPI_Type_get_name of a renamed MPI_DOUBLE is \"%s\" (%d)", name, n);
    TRY(MPI_Type_set_name(MPI_DOUBLE, "MPI_DOUBLE"));
    RC(MPI_Type_set_name(MPI_DATATYPE_NULL, "none"), MPI_ERR_TYPE);
    TRY(MPI_Win_get_name(MPI_WIN_NULL, name, &n));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && n == 12, "MPI_Win_get_name(MPI_WIN_NULL) is \"%s\" (%d)", name, n);
    TRY(MPI_Comm_get_name(MPI_COMM_NULL, name, &n));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && n == 13, "MPI_Comm_get_name(MPI_COMM_NULL) is \"%s\" (%d)", name, n);
    MPI_Datatype col;
    TRY(MPI_Type_vector(3, 1, 4, MPI_INT, &col));
    TRY(MPI_Type_set_name(col, "column"));
    TRY(MPI_Type_get_name(col, name, &n));
    CHECK(strcmp(name, "column") == 0, "MPI_Type_get_name of a named type is \"%s\"", name);
    MPI_Aint lb = -1, extent = -1;
    TRY(MPI_Type_get_extent(col, &lb, &extent));
    CHECK(lb == 0 && extent == 9 * (MPI_Aint)sizeof(int), "a column's extent: lb %ld extent %ld", (long)lb, (long)extent);
    TRY(MPI_Type_get_true_extent(col, &lb, &extent));
    CHECK(lb == 0 && extent == 9 * (MPI_Aint)sizeof(int), "a column's true extent: lb %ld extent %ld", (long)lb,
          (long)extent);
    TRY(MPI_Type_free(&col));
    int a[4];
    MPI_Aint p0, p3;
    TRY(MPI_Get_address(&a[0], &p0));
    TRY(MPI_Get_address(&a[3], &p3));
    EQ(MPI_Aint_diff(p3, p0), 3 * sizeof(int), "MPI_Aint_diff");
    EQ(MPI_Aint_add(p0, 3 * sizeof(int)), p3, "MPI_Aint_add");
    passed("datatypes");
}

static void environment(void) {
    int major = -1, minor = -1, n = 0, flag = -1;
    TRY(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "MPI_Abi_get_version gave %d.%d, want 1.0", major, minor);
    TRY(MPI_Get_version(&major, &minor));
    CHECK(major == MPI_VERSION && minor == MPI_SUBVERSION, "MPI_Get_version gave %d.%d", major, minor);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    TRY(MPI_Get_library_version(lib, &n));
    CHECK(n == (int)strlen(lib) && strstr(lib, "gompi") != NULL, "MPI_Get_library_version gave \"%s\" (%d)", lib, n);
    char host[MPI_MAX_PROCESSOR_NAME];
    TRY(MPI_Get_processor_name(host, &n));
    CHECK(n > 0 && n == (int)strlen(host), "MPI_Get_processor_name gave \"%s\" (%d)", host, n);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 1, "MPI_Wtick is %g", tick);
    CHECK(MPI_Wtime() >= t0, "MPI_Wtime went back");
    CHECK(t0 >= early, "MPI_Wtime read %g in a constructor, then %g: its origin moved", early, t0);
    TRY(MPI_Initialized(&flag));
    EQ(flag, 1, "MPI_Initialized");
    TRY(MPI_Finalized(&flag));
    EQ(flag, 0, "MPI_Finalized before MPI_Finalize");
    TRY(MPI_Query_thread(&flag));
    EQ(flag, MPI_THREAD_MULTIPLE, "MPI_Query_thread");
    TRY(MPI_Is_thread_main(&flag));
    EQ(flag, 1, "MPI_Is_thread_main on the thread that called MPI_Init_thread");
    TRY(MPI_Pcontrol(1));
    TRY(MPI_Pcontrol(0, "ignored"));
    /* Functions gompi lacks: their handle results are null, as a failed
     * call's are. */
    MPI_Win win = MPI_Win_fromint(0x7777);
    int base[4];
    RC(MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(win == MPI_WIN_NULL, "MPI_Win_create failed and left %#x, want MPI_WIN_NULL", MPI_Win_toint(win));
    MPI_File fh = MPI_File_fromint(0x7777);
    RC(MPI_File_open(MPI_COMM_WORLD, "gompi-handles-no-file", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
       MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(fh == MPI_FILE_NULL, "MPI_File_open failed and left %#x, want MPI_FILE_NULL", MPI_File_toint(fh));
    MPI_Comm inter = MPI_Comm_fromint(0x7777);
    RC(MPI_Comm_join(0, &inter), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_join failed and left %#x, want MPI_COMM_NULL", MPI_Comm_toint(inter));
    passed("environment");
}

/* requests checks that a completed request's handle is gone: the
 * library reuses its entry for the next request. */
static void requests(void) {
    int v = 3, got = 0;
    MPI_Request r[2];
    TRY(MPI_Irecv(&got, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r[0]));
    TRY(MPI_Isend(&v, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r[1]));
    CHECK(r[0] != r[1], "two live requests share the handle %d", MPI_Request_toint(r[0]));
    MPI_Request stale = r[0];
    TRY(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    EQ(got, 3, "the value received");
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "MPI_Waitall left a handle");
    int flag = -1;
    RC(MPI_Request_get_status(stale, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    /* A null request's status is empty, MPI_ERROR included. */
    MPI_Status st = {.MPI_SOURCE = 7, .MPI_TAG = 7, .MPI_ERROR = MPI_ERR_OTHER};
    TRY(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS,
          "MPI_Request_get_status of MPI_REQUEST_NULL: flag %d, source %d, tag %d, error %d", flag, st.MPI_SOURCE,
          st.MPI_TAG, st.MPI_ERROR);
    int index = -1;
    st.MPI_ERROR = MPI_ERR_OTHER;
    TRY(MPI_Waitany(2, r, &index, &st));
    CHECK(index == MPI_UNDEFINED && st.MPI_ERROR == MPI_SUCCESS, "MPI_Waitany of null requests: index %d, error %d",
          index, st.MPI_ERROR);
    passed("requests");
}

/* thread calls MPI from a thread of its own, as MPI_THREAD_MULTIPLE
 * allows: it is not the main thread, and talks to itself on
 * MPI_COMM_SELF, on a tag of its own (arg), making and completing
 * requests while the other thread does. It returns what failed, or NULL. */
static void *thread(void *arg) {
    int flag = -1, v = 5, got = 0, tag = (int)(intptr_t)arg;
    if (MPI_Is_thread_main(&flag) != MPI_SUCCESS || flag != 0)
        return "MPI_Is_thread_main on another thread than the main one";
    if (MPI_Sendrecv(&v, 1, MPI_INT, 0, tag, &got, 1, MPI_INT, 0, tag, MPI_COMM_SELF, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        got != 5)
        return "MPI_Sendrecv on MPI_COMM_SELF from another thread";
    for (int i = 0; i < 20000; i++) {
        MPI_Request r[2];
        int s = i + tag * 1000000;
        got = -1;
        if (MPI_Irecv(&got, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &r[0]) != MPI_SUCCESS ||
            MPI_Isend(&s, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &r[1]) != MPI_SUCCESS)
            return "MPI_Irecv or MPI_Isend on MPI_COMM_SELF from another thread";
        if (r[0] == r[1])
            return "two live requests of one thread share a handle";
        if (MPI_Waitall(2, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return "MPI_Waitall from another thread";
        if (got != s)
            return "a request of another thread's received the wrong value";
    }
    return NULL;
}

static void threads(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, thread, (void *)(intptr_t)(10 + i)) == 0, "pthread_create");
    for (int i = 0; i < 2; i++) {
        void *failed = NULL;
        CHECK(pthread_join(t[i], &failed) == 0, "pthread_join");
        CHECK(failed == NULL, "%s", (char *)failed);
    }
    passed("threads");
}

int main(int argc, char **argv) {
    int provided = -1, flag = -1;
    TRY(MPI_Initialized(&flag));
    EQ(flag, 0, "MPI_Initialized before MPI_Init_thread");
    TRY(MPI_Query_thread(&provided));
    EQ(provided, MPI_THREAD_MULTIPLE, "MPI_Query_thread before MPI_Init_thread");
    TRY(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    EQ(provided, MPI_THREAD_MULTIPLE, "MPI_Init_thread's provided level");
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &check_rank));
    handles();
    datatypes();
    environment();
    requests();
    threads();
    MPI_Comm dup;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TRY(MPI_Finalize());
    TRY(MPI_Finalized(&flag));
    EQ(flag, 1, "MPI_Finalized after MPI_Finalize");
    /* The predefined communicators end with the World Model; the errors
     * still go to MPI_COMM_SELF's handler. */
    int after = -1;
    RC(MPI_Comm_rank(MPI_COMM_WORLD, &after), MPI_ERR_COMM);
    RC(MPI_Comm_size(MPI_COMM_SELF, &after), MPI_ERR_COMM);
    RC(MPI_Comm_rank(dup, &after), MPI_ERR_COMM); /* and those made from them */
    EQ(after, -1, "the rank or size given after MPI_Finalize");
    passed("finalized");
    return 0;
}
