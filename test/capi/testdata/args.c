/* Bad arguments that MPICH's error tests pass: a NULL where a call writes
 * its result is MPI_ERR_ARG, not a crash; a constructor that fails leaves
 * the null handle; MPI_Reduce_local refuses MPI_IN_PLACE and aliased
 * buffers; MPI_BYTE and MPI_C_BOOL take only the operations MPI gives
 * them; MPI_Comm_create_from_group raises its errors on the handler it is
 * given. Run with 2 or more ranks. */
#include "check.h"
#include <stdbool.h>

static int calls;

static void count_calls(MPI_Comm *comm, int *code, ...) {
    (void)code;
    CHECK(*comm == MPI_COMM_NULL, "MPI_Comm_create_from_group's handler got comm %#x", MPI_Comm_toint(*comm));
    calls++;
}

static void null_outputs(void) {
    MPI_Group g;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Datatype t = MPI_INT;
    char name[MPI_MAX_OBJECT_NAME];
    int len, n = 4;
    RC(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    RC(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);
    RC(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    RC(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
    RC(MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &len), MPI_ERR_ARG);
    RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), MPI_ERR_ARG);
    RC(MPI_Isend(&n, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    /* A status the call reads must be one; one it fills may be ignored. */
    RC(MPI_Get_count(NULL, MPI_INT, &n), MPI_ERR_ARG);
    RC(MPI_Test_cancelled(NULL, &n), MPI_ERR_ARG);
    RC(MPI_Status_set_cancelled(NULL, 1), MPI_ERR_ARG);
    TRY(MPI_Recv(&n, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &g));
    RC(MPI_Group_size(g, NULL), MPI_ERR_ARG);
    RC(MPI_Group_union(g, g, NULL), MPI_ERR_ARG);
    int ranks[1] = {0};
    RC(MPI_Group_translate_ranks(g, 1, ranks, g, NULL), MPI_ERR_ARG);

    /* A constructor that fails leaves the null handle, not what the
     * variable held. */
    int dims[2] = {8, 8}, periods[2] = {0, 0};
    RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS);
    CHECK(c == MPI_COMM_NULL, "a failed MPI_Cart_create left the handle %#x", MPI_Comm_toint(c));
    RC(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK(t == MPI_DATATYPE_NULL, "a failed MPI_Type_contiguous left the handle %#x", MPI_Type_toint(t));
    MPI_Group ng = g;
    int bad[1] = {99};
    RC(MPI_Group_incl(g, 1, bad, &ng), MPI_ERR_RANK);
    CHECK(ng == MPI_GROUP_NULL, "a failed MPI_Group_incl left the handle %#x", MPI_Group_toint(ng));
    TRY(MPI_Group_free(&g));
    passed("NULL outputs, failed constructors");
}

static void reductions(void) {
    int a[2] = {1, 2}, b[2] = {3, 4};
    RC(MPI_Reduce_local(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    RC(MPI_Reduce_local(a, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    RC(MPI_Reduce_local(b, b, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    RC(MPI_Reduce_local(NULL, b, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    TRY(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
    TRY(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_SUM));
    CHECK(b[0] == 4 && b[1] == 6, "MPI_Reduce_local gave %d %d", b[0], b[1]);

    unsigned char x = 0x0f, y = 0;
    bool t = true, u = false;
    int size;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    RC(MPI_Allreduce(&x, &y, 1, MPI_BYTE, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Allreduce(&x, &y, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Reduce_local(&x, &y, 1, MPI_BYTE, MPI_LOR), MPI_ERR_OP);
    RC(MPI_Allreduce(&t, &u, 1, MPI_C_BOOL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Allreduce(&t, &u, 1, MPI_C_BOOL, MPI_BOR, MPI_COMM_WORLD), MPI_ERR_OP);
    x = (unsigned char)(1 << (check_rank % 8));
    TRY(MPI_Allreduce(&x, &y, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
    CHECK(y == (1 << (size < 8 ? size : 8)) - 1, "MPI_BOR on MPI_BYTE gave %#x", y);
    t = check_rank == 0;
    TRY(MPI_Allreduce(&t, &u, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(u, "MPI_LOR on MPI_C_BOOL gave false");
    unsigned char m = (unsigned char)check_rank, mx = 0;
    TRY(MPI_Allreduce(&m, &mx, 1, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD));
    CHECK(mx == size - 1, "MPI_MAX on MPI_UNSIGNED_CHAR gave %d", mx);
    passed("MPI_Reduce_local's buffers, operations on MPI_BYTE and MPI_C_BOOL");
}

static void sessions(void) {
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Info info;
    MPI_Group g;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Errhandler eh;
    int len = 0;
    TRY(MPI_Info_create(&info));
    TRY(MPI_Info_set(info, "thread_level", "NOT_A_LEVEL"));
    RC(MPI_Session_init(info, MPI_ERRORS_RETURN, &s), MPI_ERR_INFO_VALUE);
    TRY(MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE"));
    TRY(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    TRY(MPI_Info_free(&info));
    TRY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    CHECK(len > 1, "the length of pset 0 is %d", len);
    RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL), MPI_ERR_ARG);

    TRY(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    TRY(MPI_Comm_create_errhandler(count_calls, &eh));
    int rc = MPI_Comm_create_from_group(g, "gompi.test.args", MPI_INFO_NULL, eh, NULL);
    CHECK(calls == 1, "a NULL newcomm called the handler %d times (rc %d)", calls, rc);
    TRY(MPI_Comm_create_from_group(g, "gompi.test.args", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    TRY(MPI_Barrier(c));
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Errhandler_free(&eh));
    TRY(MPI_Group_free(&g));
    TRY(MPI_Session_finalize(&s));
    passed("session arguments, MPI_Comm_create_from_group's handler");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    null_outputs();
    reductions();
    sessions();
    TRY(MPI_Finalize());
    return 0;
}
