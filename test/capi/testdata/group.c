/* Groups through the C library: Comm_group, the group constructors and
 * queries, MPI_GROUP_EMPTY, Comm_create and Comm_create_group, and the
 * error classes of bad arguments. Runs on 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "group: rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                  \
        }                                                                  \
    } while (0)

static void ok(const char *what) {
    if (rank == 0)
        printf("ok %s\n", what);
}

static int gsize(MPI_Group g) {
    int n;
    CHECK(MPI_Group_size(g, &n) == MPI_SUCCESS, "MPI_Group_size");
    return n;
}

static int grank(MPI_Group g) {
    int r;
    CHECK(MPI_Group_rank(g, &r) == MPI_SUCCESS, "MPI_Group_rank");
    return r;
}

static int compare(MPI_Group a, MPI_Group b) {
    int r;
    CHECK(MPI_Group_compare(a, b, &r) == MPI_SUCCESS, "MPI_Group_compare");
    return r;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);

    MPI_Group world;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS, "MPI_Comm_group");
    CHECK(gsize(world) == size && grank(world) == rank, "world group: size %d rank %d", gsize(world), grank(world));
    ok("comm group");

    /* The last rank and rank 0, in that order. */
    int ends[2] = {size - 1, 0};
    MPI_Group rev;
    CHECK(MPI_Group_incl(world, 2, ends, &rev) == MPI_SUCCESS, "MPI_Group_incl");
    int want = rank == 0 ? 1 : rank == size - 1 ? 0 : MPI_UNDEFINED;
    CHECK(gsize(rev) == 2 && grank(rev) == want, "incl: size %d rank %d (want 2, %d)", gsize(rev), grank(rev), want);

    int zero[1] = {0};
    MPI_Group first, rest;
    CHECK(MPI_Group_incl(world, 1, zero, &first) == MPI_SUCCESS, "MPI_Group_incl of rank 0");
    CHECK(MPI_Group_excl(world, 1, zero, &rest) == MPI_SUCCESS, "MPI_Group_excl");
    CHECK(gsize(rest) == size - 1 && grank(rest) == (rank == 0 ? MPI_UNDEFINED : rank - 1),
          "excl: size %d rank %d", gsize(rest), grank(rest));
    ok("group incl excl");

    int evens[1][3] = {{0, size - 1, 2}};
    MPI_Group ge, go;
    CHECK(MPI_Group_range_incl(world, 1, evens, &ge) == MPI_SUCCESS, "MPI_Group_range_incl");
    CHECK(MPI_Group_range_excl(world, 1, evens, &go) == MPI_SUCCESS, "MPI_Group_range_excl");
    CHECK(gsize(ge) == (size + 1) / 2 && gsize(go) == size / 2, "range: %d evens, %d odds", gsize(ge), gsize(go));
    CHECK(grank(ge) == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "range incl rank %d", grank(ge));
    CHECK(grank(go) == (rank % 2 == 1 ? rank / 2 : MPI_UNDEFINED), "range excl rank %d", grank(go));
    int down[1][3] = {{size - 1, 0, -1}};
    MPI_Group gdown;
    CHECK(MPI_Group_range_incl(world, 1, down, &gdown) == MPI_SUCCESS, "MPI_Group_range_incl downwards");
    CHECK(gsize(gdown) == size && grank(gdown) == size - 1 - rank, "downwards: rank %d", grank(gdown));
    ok("group range incl excl");

    MPI_Group empty;
    CHECK(MPI_Group_incl(world, 0, NULL, &empty) == MPI_SUCCESS, "MPI_Group_incl of no ranks");
    CHECK(empty == MPI_GROUP_EMPTY, "incl of no ranks gives MPI_GROUP_EMPTY");
    CHECK(gsize(MPI_GROUP_EMPTY) == 0 && grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED, "MPI_GROUP_EMPTY's size and rank");
    MPI_Group u;
    CHECK(MPI_Group_union(MPI_GROUP_EMPTY, world, &u) == MPI_SUCCESS, "MPI_Group_union with MPI_GROUP_EMPTY");
    CHECK(grank(u) == rank && compare(u, world) == MPI_IDENT, "empty union world: rank %d", grank(u));
    MPI_Group_free(&u);
    ok("group empty");

    MPI_Group g;
    CHECK(MPI_Group_union(first, rest, &g) == MPI_SUCCESS, "MPI_Group_union");
    CHECK(compare(g, world) == MPI_IDENT, "first+rest is world");
    MPI_Group_free(&g);
    CHECK(MPI_Group_union(rest, first, &g) == MPI_SUCCESS, "MPI_Group_union");
    CHECK(compare(g, world) == MPI_SIMILAR, "rest+first is similar to world");
    CHECK(grank(g) == (rank == 0 ? size - 1 : rank - 1), "rest+first: rank %d", grank(g));
    MPI_Group_free(&g);
    CHECK(MPI_Group_intersection(world, rev, &g) == MPI_SUCCESS, "MPI_Group_intersection");
    CHECK(gsize(g) == 2 && compare(g, rev) == MPI_SIMILAR, "world & rev");
    MPI_Group_free(&g);
    CHECK(MPI_Group_difference(world, world, &g) == MPI_SUCCESS, "MPI_Group_difference");
    CHECK(g == MPI_GROUP_EMPTY && compare(g, MPI_GROUP_EMPTY) == MPI_IDENT, "world - world is empty");
    CHECK(MPI_Group_difference(world, first, &g) == MPI_SUCCESS, "MPI_Group_difference");
    CHECK(compare(g, rest) == MPI_IDENT, "world - first is rest");
    MPI_Group_free(&g);
    CHECK(compare(world, first) == MPI_UNEQUAL, "world and first are unequal");
    ok("group union intersection difference compare");

    int in[3] = {0, size - 1, MPI_PROC_NULL}, out[3];
    CHECK(MPI_Group_translate_ranks(world, 3, in, rev, out) == MPI_SUCCESS, "MPI_Group_translate_ranks");
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == MPI_PROC_NULL, "translate to rev: %d %d %d", out[0], out[1], out[2]);
    CHECK(MPI_Group_translate_ranks(world, 3, in, first, out) == MPI_SUCCESS, "MPI_Group_translate_ranks");
    CHECK(out[0] == 0 && out[1] == MPI_UNDEFINED && out[2] == MPI_PROC_NULL, "translate to first: %d %d %d", out[0], out[1], out[2]);
    ok("group translate ranks");

    /* Comm_create: everyone but rank 0. */
    MPI_Comm c;
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, rest, &c) == MPI_SUCCESS, "MPI_Comm_create");
    if (rank == 0) {
        CHECK(c == MPI_COMM_NULL, "rank 0 is outside the created communicator");
    } else {
        int r, n;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &n);
        CHECK(r == rank - 1 && n == size - 1, "created: rank %d size %d", r, n);
        int sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        CHECK(sum == size - 1, "allreduce on the created communicator: %d", sum);
        MPI_Comm_free(&c);
    }
    ok("comm create");

    /* Comm_create_group: only the even ranks call it. */
    if (rank % 2 == 0) {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, ge, 7, &c) == MPI_SUCCESS, "MPI_Comm_create_group");
        int r, n;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &n);
        CHECK(r == rank / 2 && n == (size + 1) / 2, "created from group: rank %d size %d", r, n);
        MPI_Barrier(c);
        MPI_Comm_free(&c);
    }
    ok("comm create group");

    /* Errors: group calls name no communicator, so MPI_COMM_SELF's
     * handler takes them. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, err;
    int bad[1] = {size};
    err = MPI_Group_incl(world, 1, bad, &g);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK, "incl of rank %d: class %d (want MPI_ERR_RANK)", size, cls);
    int twice[2] = {0, 0};
    err = MPI_Group_excl(world, 2, twice, &g);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK, "excl of rank 0 twice: class %d (want MPI_ERR_RANK)", cls);
    int flat[1][3] = {{0, 1, 0}};
    err = MPI_Group_range_incl(world, 1, flat, &g);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "range of stride 0: class %d (want MPI_ERR_ARG)", cls);
    int away[1][3] = {{1, 0, 1}};
    err = MPI_Group_range_incl(world, 1, away, &g);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "range of a stride away from its last: class %d (want MPI_ERR_ARG)", cls);
    int past[1][3] = {{0, size, 1}};
    err = MPI_Group_range_excl(world, 1, past, &g);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK, "range past the group: class %d (want MPI_ERR_RANK)", cls);
    err = MPI_Group_size(MPI_GROUP_NULL, &cls);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_GROUP, "size of MPI_GROUP_NULL: class %d (want MPI_ERR_GROUP)", cls);
    err = MPI_Group_translate_ranks(world, 1, bad, rev, out);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK, "translate of rank %d: class %d (want MPI_ERR_RANK)", size, cls);
    err = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_GROUP, "comm create of MPI_GROUP_NULL: class %d (want MPI_ERR_GROUP)", cls);
    ok("group errors");

    MPI_Group all[] = {world, rev, first, rest, ge, go, gdown, empty};
    for (int i = 0; i < (int)(sizeof all / sizeof all[0]); i++) {
        CHECK(MPI_Group_free(&all[i]) == MPI_SUCCESS && all[i] == MPI_GROUP_NULL, "MPI_Group_free of group %d", i);
    }
    MPI_Group gone = rev;
    err = MPI_Group_free(&gone);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_GROUP, "free of a freed group: class %d (want MPI_ERR_GROUP)", cls);
    ok("group free");

    MPI_Finalize();
    return 0;
}
