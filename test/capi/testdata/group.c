/* Groups through the C library: Comm_group, the group constructors and
 * queries, MPI_GROUP_EMPTY, Comm_create and Comm_create_group, and the
 * error classes of bad arguments. Runs on 2 or more ranks. */
#include "check.h"

static int rank, size;

static int gsize(MPI_Group g) {
    int n;
    TRY(MPI_Group_size(g, &n));
    return n;
}

static int grank(MPI_Group g) {
    int r;
    TRY(MPI_Group_rank(g, &r));
    return r;
}

static int compare(MPI_Group a, MPI_Group b) {
    int r;
    TRY(MPI_Group_compare(a, b, &r));
    return r;
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);

    MPI_Group world;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK(gsize(world) == size && grank(world) == rank, "world group: size %d rank %d", gsize(world), grank(world));
    passed("comm group");

    /* The last rank and rank 0, in that order. */
    int ends[2] = {size - 1, 0};
    MPI_Group rev;
    TRY(MPI_Group_incl(world, 2, ends, &rev));
    int want = rank == 0 ? 1 : rank == size - 1 ? 0 : MPI_UNDEFINED;
    CHECK(gsize(rev) == 2 && grank(rev) == want, "incl: size %d rank %d (want 2, %d)", gsize(rev), grank(rev), want);

    int zero[1] = {0};
    MPI_Group first, rest;
    TRY(MPI_Group_incl(world, 1, zero, &first));
    TRY(MPI_Group_excl(world, 1, zero, &rest));
    CHECK(gsize(rest) == size - 1 && grank(rest) == (rank == 0 ? MPI_UNDEFINED : rank - 1),
          "excl: size %d rank %d", gsize(rest), grank(rest));
    passed("group incl excl");

    int evens[1][3] = {{0, size - 1, 2}};
    MPI_Group ge, go;
    TRY(MPI_Group_range_incl(world, 1, evens, &ge));
    TRY(MPI_Group_range_excl(world, 1, evens, &go));
    CHECK(gsize(ge) == (size + 1) / 2 && gsize(go) == size / 2, "range: %d evens, %d odds", gsize(ge), gsize(go));
    CHECK(grank(ge) == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "range incl rank %d", grank(ge));
    CHECK(grank(go) == (rank % 2 == 1 ? rank / 2 : MPI_UNDEFINED), "range excl rank %d", grank(go));
    int down[1][3] = {{size - 1, 0, -1}};
    MPI_Group gdown;
    TRY(MPI_Group_range_incl(world, 1, down, &gdown));
    CHECK(gsize(gdown) == size && grank(gdown) == size - 1 - rank, "downwards: rank %d", grank(gdown));
    passed("group range incl excl");

    MPI_Group empty;
    TRY(MPI_Group_incl(world, 0, NULL, &empty));
    CHECK(empty == MPI_GROUP_EMPTY, "incl of no ranks gives MPI_GROUP_EMPTY");
    CHECK(gsize(MPI_GROUP_EMPTY) == 0 && grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED, "MPI_GROUP_EMPTY's size and rank");
    MPI_Group u;
    TRY(MPI_Group_union(MPI_GROUP_EMPTY, world, &u));
    CHECK(grank(u) == rank && compare(u, world) == MPI_IDENT, "empty union world: rank %d", grank(u));
    TRY(MPI_Group_free(&u));
    passed("group empty");

    MPI_Group g;
    TRY(MPI_Group_union(first, rest, &g));
    CHECK(compare(g, world) == MPI_IDENT, "first+rest is world");
    TRY(MPI_Group_free(&g));
    TRY(MPI_Group_union(rest, first, &g));
    CHECK(compare(g, world) == MPI_SIMILAR, "rest+first is similar to world");
    CHECK(grank(g) == (rank == 0 ? size - 1 : rank - 1), "rest+first: rank %d", grank(g));
    TRY(MPI_Group_free(&g));
    TRY(MPI_Group_intersection(world, rev, &g));
    CHECK(gsize(g) == 2 && compare(g, rev) == MPI_SIMILAR, "world & rev");
    TRY(MPI_Group_free(&g));
    TRY(MPI_Group_difference(world, world, &g));
    CHECK(g == MPI_GROUP_EMPTY && compare(g, MPI_GROUP_EMPTY) == MPI_IDENT, "world - world is empty");
    TRY(MPI_Group_difference(world, first, &g));
    CHECK(compare(g, rest) == MPI_IDENT, "world - first is rest");
    TRY(MPI_Group_free(&g));
    CHECK(compare(world, first) == MPI_UNEQUAL, "world and first are unequal");
    passed("group union intersection difference compare");

    int in[3] = {0, size - 1, MPI_PROC_NULL}, out[3];
    TRY(MPI_Group_translate_ranks(world, 3, in, rev, out));
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == MPI_PROC_NULL, "translate to rev: %d %d %d", out[0], out[1], out[2]);
    TRY(MPI_Group_translate_ranks(world, 3, in, first, out));
    CHECK(out[0] == 0 && out[1] == MPI_UNDEFINED && out[2] == MPI_PROC_NULL, "translate to first: %d %d %d", out[0], out[1], out[2]);
    passed("group translate ranks");

    /* Comm_create: everyone but rank 0. */
    MPI_Comm c;
    TRY(MPI_Comm_create(MPI_COMM_WORLD, rest, &c));
    if (rank == 0) {
        CHECK(c == MPI_COMM_NULL, "rank 0 is outside the created communicator");
    } else {
        int r, n;
        TRY(MPI_Comm_rank(c, &r));
        TRY(MPI_Comm_size(c, &n));
        CHECK(r == rank - 1 && n == size - 1, "created: rank %d size %d", r, n);
        int sum = 0, one = 1;
        TRY(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == size - 1, "allreduce on the created communicator: %d", sum);
        TRY(MPI_Comm_free(&c));
    }
    passed("comm create");

    /* Comm_create_group: the even ranks make one; the odd ones, passing
     * the even ranks' group (the empty one on rank 1), get MPI_COMM_NULL. */
    TRY(MPI_Comm_create_group(MPI_COMM_WORLD, rank == 1 ? MPI_GROUP_EMPTY : ge, 7, &c));
    if (rank % 2 == 0) {
        int r, n;
        TRY(MPI_Comm_rank(c, &r));
        TRY(MPI_Comm_size(c, &n));
        CHECK(r == rank / 2 && n == (size + 1) / 2, "created from group: rank %d size %d", r, n);
        TRY(MPI_Barrier(c));
        TRY(MPI_Comm_free(&c));
    } else {
        CHECK(c == MPI_COMM_NULL, "a rank outside the group got a communicator");
    }
    passed("comm create group");

    /* Errors: group calls name no communicator, so MPI_COMM_SELF's
     * handler takes them. */
    int cls;
    int bad[1] = {size};
    RC(MPI_Group_incl(world, 1, bad, &g), MPI_ERR_RANK);
    int twice[2] = {0, 0};
    RC(MPI_Group_excl(world, 2, twice, &g), MPI_ERR_RANK);
    int flat[1][3] = {{0, 1, 0}};
    RC(MPI_Group_range_incl(world, 1, flat, &g), MPI_ERR_ARG);
    int away[1][3] = {{1, 0, 1}};
    RC(MPI_Group_range_incl(world, 1, away, &g), MPI_ERR_ARG);
    int past[1][3] = {{0, size, 1}};
    RC(MPI_Group_range_excl(world, 1, past, &g), MPI_ERR_RANK);
    RC(MPI_Group_size(MPI_GROUP_NULL, &cls), MPI_ERR_GROUP);
    RC(MPI_Group_translate_ranks(world, 1, bad, rev, out), MPI_ERR_RANK);
    RC(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    passed("group errors");

    MPI_Group all[] = {world, rev, first, rest, ge, go, gdown, empty};
    for (int i = 0; i < (int)(sizeof all / sizeof all[0]); i++) {
        TRY(MPI_Group_free(&all[i]));
        CHECK(all[i] == MPI_GROUP_NULL, "MPI_Group_free of group %d", i);
    }
    MPI_Group gone = rev;
    RC(MPI_Group_free(&gone), MPI_ERR_GROUP);
    passed("group free");

    TRY(MPI_Finalize());
    return 0;
}
