/* The collective constructors whose arguments the C library checks
 * itself (a NULL array, a negative count, a bad group or info handle, an
 * unknown split type, NULL for the new communicator's address): when one
 * rank's fail those checks, every rank fails, the bad rank with its own
 * error class and the others with MPI_ERR_ARG naming it, rather than
 * waiting for it; the duplications, MPI_Comm_create_group,
 * MPI_Comm_create_from_group and MPI_Intercomm_merge, whose exchanges
 * carry no such mark, fail the bad rank alone and let the others finish,
 * as the intercommunicator constructors do where the bad rank is alone
 * in its group. A correct call works afterwards. Runs on 4 ranks, rank 2
 * the bad one.
 *
 * With BADARGS_FATAL=<rank>:<part> in the environment the program runs
 * that part alone, with MPI_ERRORS_ARE_FATAL at that rank, whose error
 * message then ends the job for the Go test to read. */
#include "check.h"

/* MPI_UNWEIGHTED is a sentinel address, which gcc takes for an array of
 * no room. */
#pragma GCC diagnostic ignored "-Wstringop-overread"

#define BAD 2

static int rank, size, fatal_rank = -1;
static const char *fatal_part;

/* failed checks a constructor's result: rc of class own at the bad rank,
 * else of class others, and no communicator made. */
static void failed(const char *what, int rc, MPI_Comm c, int own, int others) {
    int class = -1;
    MPI_Error_class(rc, &class);
    int want = rank == BAD ? own : others;
    CHECK(class == want, "%s: returned class %d (code %d), want %d", what, class, rc, want);
    CHECK(c == MPI_COMM_NULL, "%s: a failed call left a communicator", what);
}

/* part reports whether to run the part named name, with MPI_ERRORS_ARE_FATAL
 * at the rank BADARGS_FATAL names. */
static int part(const char *name) {
    if (fatal_part == NULL)
        return 1;
    if (strcmp(fatal_part, name) != 0)
        return 0;
    if (rank == fatal_rank)
        TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return 1;
}

static void cart(void) {
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    TRY(MPI_Dims_create(size, 2, dims));
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, rank == BAD ? NULL : dims, periods, 0, &c);
    failed("MPI_Cart_create with NULL dims", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Cart_create(MPI_COMM_WORLD, rank == BAD ? -1 : 2, dims, periods, 0, &c);
    failed("MPI_Cart_create with ndims -1", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    CHECK(c != MPI_COMM_NULL, "MPI_Cart_create after the failures gave no grid");

    int remain[2] = {1, 0};
    MPI_Comm sub = MPI_COMM_WORLD;
    rc = MPI_Cart_sub(c, rank == BAD ? NULL : remain, &sub);
    failed("MPI_Cart_sub with NULL remain_dims", rc, sub, MPI_ERR_ARG, MPI_ERR_ARG);
    TRY(MPI_Cart_sub(c, remain, &sub));
    int n;
    TRY(MPI_Comm_size(sub, &n));
    EQ(n, dims[0], "MPI_Cart_sub's size after the failure");
    TRY(MPI_Comm_free(&sub));
    TRY(MPI_Comm_free(&c));
    passed("cart");
}

static void graph(void) {
    /* A ring: node i's neighbours are i-1 and i+1. */
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Graph_create(MPI_COMM_WORLD, size, rank == BAD ? NULL : index, edges, 0, &c);
    failed("MPI_Graph_create with NULL index", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Graph_create(MPI_COMM_WORLD, size, index, rank == BAD ? NULL : edges, 0, &c);
    failed("MPI_Graph_create with NULL edges", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Graph_create(MPI_COMM_WORLD, rank == BAD ? -1 : size, index, edges, 0, &c);
    failed("MPI_Graph_create with nnodes -1", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    TRY(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
    int nn, ne;
    TRY(MPI_Graphdims_get(c, &nn, &ne));
    CHECK(nn == size && ne == 2 * size, "MPI_Graph_create after the failures: %d nodes, %d edges", nn, ne);
    TRY(MPI_Comm_free(&c));
    passed("graph");
}

static void distgraph(void) {
    /* Each rank gives the edge from itself to the next. */
    int src = rank, one = 1, bad = -1, dst = (rank + 1) % size;
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, rank == BAD ? &bad : &one, &dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create with degree -1", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, rank == BAD ? NULL : &src, &one, &dst, MPI_UNWEIGHTED,
                               MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create with NULL sources", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, rank == BAD ? -1 : 1, &src, &one, &dst, MPI_UNWEIGHTED,
                               MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create with n -1", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    TRY(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &one, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    int in, out, w;
    TRY(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
    CHECK(in == 1 && out == 1 && !w, "MPI_Dist_graph_create after the failures: %d in, %d out, weighted %d", in, out, w);
    TRY(MPI_Comm_free(&c));

    int left = (rank + size - 1) % size;
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank == BAD ? -1 : 1, &left, MPI_UNWEIGHTED, 1, &dst,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create_adjacent with indegree -1", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, rank == BAD ? NULL : &left, MPI_UNWEIGHTED, 1, &dst,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create_adjacent with NULL sources", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, rank == BAD ? NULL : &dst,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    failed("MPI_Dist_graph_create_adjacent with NULL destinations", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    TRY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &c));
    TRY(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
    CHECK(in == 1 && out == 1 && !w, "MPI_Dist_graph_create_adjacent after the failures: %d in, %d out", in, out);
    TRY(MPI_Comm_free(&c));
    passed("distgraph");
}

static void create(void) {
    MPI_Group world, freed;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &freed));
    MPI_Group gone = freed;
    TRY(MPI_Group_free(&freed));
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Comm_create(MPI_COMM_WORLD, rank == BAD ? gone : world, &c);
    failed("MPI_Comm_create with a freed group", rc, c, MPI_ERR_GROUP, MPI_ERR_ARG);
    rc = MPI_Comm_create(MPI_COMM_WORLD, rank == BAD ? MPI_GROUP_NULL : world, &c);
    failed("MPI_Comm_create with MPI_GROUP_NULL", rc, c, MPI_ERR_GROUP, MPI_ERR_ARG);
    TRY(MPI_Comm_create(MPI_COMM_WORLD, world, &c));
    int n;
    TRY(MPI_Comm_size(c, &n));
    EQ(n, size, "MPI_Comm_create's size after the failures");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Group_free(&world));
    passed("create");
}

static void splittype(void) {
    MPI_Info info;
    TRY(MPI_Info_create(&info));
    MPI_Info gone = info;
    TRY(MPI_Info_free(&info));
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, rank == BAD ? 12345 : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    failed("MPI_Comm_split_type with type 12345", rc, c, MPI_ERR_ARG, MPI_ERR_ARG);
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, rank == BAD ? gone : MPI_INFO_NULL, &c);
    failed("MPI_Comm_split_type with a freed info", rc, c, MPI_ERR_INFO, MPI_ERR_ARG);
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    CHECK(c != MPI_COMM_NULL, "MPI_Comm_split_type after the failures gave no communicator");
    TRY(MPI_Comm_free(&c));
    passed("split type");
}

/* intercomm joins the even ranks and the odd ones, whose leaders are
 * world ranks 0 and 1. A leader's bad peer fails its group; a bad peer
 * elsewhere is not read, as MPI says. */
static void intercomm(void) {
    int even = rank % 2 == 0;
    MPI_Comm half, dup, inter = MPI_COMM_WORLD;
    TRY(MPI_Comm_split(MPI_COMM_WORLD, even, rank, &half));
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm gone = dup;
    TRY(MPI_Comm_free(&dup));
    int leader = rank < 2, rc = MPI_Intercomm_create(half, 0, leader ? gone : MPI_COMM_WORLD, even ? 1 : 0, 7, &inter);
    int class = -1;
    MPI_Error_class(rc, &class);
    EQ(class, MPI_ERR_COMM, "MPI_Intercomm_create with a freed peer at the leaders: class");
    CHECK(inter == MPI_COMM_NULL, "a failed MPI_Intercomm_create left a communicator");
    TRY(MPI_Intercomm_create(half, 0, leader ? MPI_COMM_WORLD : gone, even ? 1 : 0, 7, &inter));
    int n;
    TRY(MPI_Comm_remote_size(inter, &n));
    EQ(n, even ? size / 2 : (size + 1) / 2, "the intercommunicator's remote size");
    TRY(MPI_Comm_free(&inter));
    TRY(MPI_Comm_free(&half));
    passed("intercomm");
}

/* nulled checks a constructor's result when rank BAD passed NULL as the
 * address of the new communicator: MPI_ERR_ARG at every rank, and no
 * communicator at the others. The messages are read under
 * BADARGS_FATAL. */
static void nulled(const char *what, int rc, MPI_Comm c) {
    int class = -1;
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_ARG, "%s with a NULL result at rank %d: returned class %d (code %d), want MPI_ERR_ARG",
          what, BAD, class, rc);
    if (rank != BAD)
        CHECK(c == MPI_COMM_NULL, "%s: a failed call left a communicator", what);
}

/* nullout passes NULL for the new communicator's address at rank BAD to
 * each topology constructor, then makes the communicator. */
static void nullout(void) {
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc, n, dims[2] = {0, 0}, periods[2] = {0, 0};
    TRY(MPI_Dims_create(size, 2, dims));
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, out);
    nulled("MPI_Cart_create", rc, c);
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    MPI_Comm grid = c, sub = MPI_COMM_WORLD;
    int remain[2] = {1, 0};
    rc = MPI_Cart_sub(grid, remain, rank == BAD ? NULL : &sub);
    nulled("MPI_Cart_sub", rc, sub);
    TRY(MPI_Cart_sub(grid, remain, &sub));
    TRY(MPI_Comm_size(sub, &n));
    EQ(n, dims[0], "MPI_Cart_sub's size after the failure");
    TRY(MPI_Comm_free(&sub));
    TRY(MPI_Comm_free(&grid));

    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    c = MPI_COMM_WORLD;
    rc = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, out);
    nulled("MPI_Graph_create", rc, c);
    TRY(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
    TRY(MPI_Comm_free(&c));

    int src = rank, one = 1, left = (rank + size - 1) % size, dst = (rank + 1) % size;
    c = MPI_COMM_WORLD;
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &one, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, out);
    nulled("MPI_Dist_graph_create", rc, c);
    TRY(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &one, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    TRY(MPI_Comm_free(&c));
    c = MPI_COMM_WORLD;
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, out);
    nulled("MPI_Dist_graph_create_adjacent", rc, c);
    TRY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &c));
    TRY(MPI_Comm_free(&c));

    passed("null result topo");
}

/* nullsplit is nullout for the splits and MPI_Comm_create. */
static void nullsplit(void) {
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc, n;
    rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, out);
    nulled("MPI_Comm_split", rc, c);
    TRY(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c));
    TRY(MPI_Comm_size(c, &n));
    EQ(n, rank % 2 == 0 ? (size + 1) / 2 : size / 2, "MPI_Comm_split's size after the failure");
    TRY(MPI_Comm_free(&c));

    c = MPI_COMM_WORLD;
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out);
    nulled("MPI_Comm_split_type", rc, c);
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    CHECK(c != MPI_COMM_NULL, "MPI_Comm_split_type after the failure gave no communicator");
    TRY(MPI_Comm_free(&c));
    /* A guided split by a resource gompi does not know splits nothing,
     * so the NULL is rank BAD's alone. */
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, out);
    if (rank == BAD) {
        RC(rc, MPI_ERR_ARG);
    } else {
        TRY(rc);
        CHECK(c == MPI_COMM_NULL, "MPI_Comm_split_type guided by no resource gave a communicator");
    }

    MPI_Group world;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_create(MPI_COMM_WORLD, world, out);
    nulled("MPI_Comm_create", rc, c);
    TRY(MPI_Comm_create(MPI_COMM_WORLD, world, &c));
    TRY(MPI_Comm_size(c, &n));
    EQ(n, size, "MPI_Comm_create's size after the failure");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Group_free(&world));
    passed("null result split");
}

/* alone checks a constructor's result when rank BAD passed out, or other
 * arguments, that fail it there alone: class own at rank BAD, and no
 * communicator where out is one; elsewhere success and a communicator of
 * n ranks, which it frees. */
static void alone(const char *what, int rc, MPI_Comm *out, int own, int n) {
    int class = -1;
    MPI_Error_class(rc, &class);
    if (rank == BAD) {
        CHECK(class == own, "%s at rank %d: returned class %d (code %d), want %d", what, BAD, class, rc, own);
        CHECK(out == NULL || *out == MPI_COMM_NULL, "%s: a failed call left a communicator", what);
        return;
    }
    CHECK(rc == MPI_SUCCESS, "%s at rank %d, not this one: returned class %d (code %d), want success", what, BAD,
          class, rc);
    int got;
    TRY(MPI_Comm_size(*out, &got));
    EQ(got, n, what);
    TRY(MPI_Comm_free(out));
}

/* ialone is alone for a non-blocking duplication, whose request it
 * completes first at the ranks that succeed. */
static void ialone(const char *what, int rc, MPI_Comm *out, MPI_Request *req, int own) {
    if (rank != BAD && rc == MPI_SUCCESS)
        TRY(MPI_Wait(req, MPI_STATUS_IGNORE));
    alone(what, rc, out, own, size);
}

/* redup checks that MPI_Comm_dup works after the failures. */
static void redup(void) {
    MPI_Comm c;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int n;
    TRY(MPI_Comm_size(c, &n));
    EQ(n, size, "MPI_Comm_dup's size after the failures");
    TRY(MPI_Comm_free(&c));
}

/* freedinfo is an info handle that was freed. */
static MPI_Info freedinfo(void) {
    MPI_Info info;
    TRY(MPI_Info_create(&info));
    MPI_Info gone = info;
    TRY(MPI_Info_free(&info));
    return gone;
}

/* dupnull passes NULL for the new communicator's address at rank BAD to
 * MPI_Comm_dup and MPI_Comm_dup_with_info. */
static void dupnull(void) {
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, out);
    alone("MPI_Comm_dup with a NULL newcomm", rc, out, MPI_ERR_ARG, size);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, out);
    alone("MPI_Comm_dup_with_info with a NULL newcomm", rc, out, MPI_ERR_ARG, size);
    redup();
    passed("dup");
}

/* dupinfo passes a freed info at rank BAD to MPI_Comm_dup_with_info. */
static void dupinfo(void) {
    MPI_Info gone = freedinfo();
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, rank == BAD ? gone : MPI_INFO_NULL, &c);
    alone("MPI_Comm_dup_with_info with a freed info", rc, &c, MPI_ERR_INFO, size);
    redup();
    passed("dup info");
}

/* idupnull passes NULL for the new communicator's address, then for the
 * request's, at rank BAD to MPI_Comm_idup. */
static void idupnull(void) {
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, rank == BAD ? NULL : &c, &r);
    ialone("MPI_Comm_idup with a NULL newcomm", rc, rank == BAD ? NULL : &c, &r, MPI_ERR_ARG);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_idup(MPI_COMM_WORLD, &c, rank == BAD ? NULL : &r);
    ialone("MPI_Comm_idup with a NULL request", rc, &c, &r, MPI_ERR_ARG);
    redup();
    passed("idup");
}

/* idupinfo passes NULL for the request's address, then a freed info,
 * then NULL for the new communicator's address, at rank BAD to
 * MPI_Comm_idup_with_info. */
static void idupinfo(void) {
    MPI_Info gone = freedinfo();
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, rank == BAD ? NULL : &r);
    ialone("MPI_Comm_idup_with_info with a NULL request", rc, &c, &r, MPI_ERR_ARG);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, rank == BAD ? gone : MPI_INFO_NULL, &c, &r);
    ialone("MPI_Comm_idup_with_info with a freed info", rc, &c, &r, MPI_ERR_INFO);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, rank == BAD ? NULL : &c, &r);
    ialone("MPI_Comm_idup_with_info with a NULL newcomm", rc, rank == BAD ? NULL : &c, &r, MPI_ERR_ARG);
    redup();
    passed("idup info");
}

/* creategroup passes NULL for the new communicator's address at rank BAD
 * to MPI_Comm_create_group. An invalid group there fails it alone too,
 * here where the others' group leaves it out: were it a member, they
 * would wait for it, as it cannot know which group to meet them in. */
static void creategroup(void) {
    MPI_Group world, others;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int bad = BAD;
    TRY(MPI_Group_excl(world, 1, &bad, &others));
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc = MPI_Comm_create_group(MPI_COMM_WORLD, world, 5, out);
    alone("MPI_Comm_create_group with a NULL newcomm", rc, out, MPI_ERR_ARG, size);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_create_group(MPI_COMM_WORLD, rank == BAD ? MPI_GROUP_NULL : others, 5, &c);
    alone("MPI_Comm_create_group with MPI_GROUP_NULL", rc, &c, MPI_ERR_GROUP, size - 1);
    TRY(MPI_Comm_create_group(MPI_COMM_WORLD, world, 5, &c));
    int n;
    TRY(MPI_Comm_size(c, &n));
    EQ(n, size, "MPI_Comm_create_group's size after the failures");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Group_free(&others));
    TRY(MPI_Group_free(&world));
    passed("create group");
}

/* handler is the error handler this rank gives the constructors from
 * groups, whose errors go to it: MPI_ERRORS_ARE_FATAL at the rank
 * BADARGS_FATAL names. */
static MPI_Errhandler handler(void) {
    return rank == fatal_rank ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN;
}

/* The intercommunicators of the parts below join the low group, ranks 0
 * to BAD (so that rank BAD is rank BAD of its group too), and the high
 * group, the ranks above; then rank BAD alone and the others. low
 * reports whether this rank is in the low group. */
static int low(void) { return rank <= BAD; }

/* nullinter passes NULL for the new intercommunicator's address at rank
 * BAD to MPI_Intercomm_create, whose leader is another rank, then rank
 * BAD itself: every rank of both groups fails, naming it. Alone in its
 * group, rank BAD makes the intercommunicator and frees it, and the
 * others succeed. */
static void nullinter(void) {
    MPI_Comm half, solo, c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    TRY(MPI_Comm_split(MPI_COMM_WORLD, low(), rank, &half));
    int rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low() ? BAD + 1 : 0, 8, out);
    nulled("MPI_Intercomm_create", rc, c);
    c = MPI_COMM_WORLD;
    rc = MPI_Intercomm_create(half, low() ? BAD : 0, MPI_COMM_WORLD, low() ? BAD + 1 : BAD, 8, out);
    nulled("MPI_Intercomm_create, the bad rank its group's leader,", rc, c);
    TRY(MPI_Comm_split(MPI_COMM_WORLD, rank == BAD, rank, &solo));
    c = MPI_COMM_WORLD;
    rc = MPI_Intercomm_create(solo, 0, MPI_COMM_WORLD, rank == BAD ? 0 : BAD, 8, out);
    alone("MPI_Intercomm_create with a NULL newintercomm alone in its group", rc, out, MPI_ERR_ARG, size - 1);
    TRY(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low() ? BAD + 1 : 0, 8, &c));
    int n;
    TRY(MPI_Comm_remote_size(c, &n));
    EQ(n, low() ? size - BAD - 1 : BAD + 1, "MPI_Intercomm_create's remote size after the failures");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Comm_free(&solo));
    TRY(MPI_Comm_free(&half));
    passed("null result intercomm");
}

/* nullmerge passes NULL for the new intracommunicator's address at rank
 * BAD to MPI_Intercomm_merge, whose exchange carries no mark: rank BAD
 * merges anyway and frees the result, and the others succeed. */
static void nullmerge(void) {
    MPI_Comm half, inter, c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    TRY(MPI_Comm_split(MPI_COMM_WORLD, low(), rank, &half));
    TRY(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low() ? BAD + 1 : 0, 9, &inter));
    int rc = MPI_Intercomm_merge(inter, !low(), out);
    alone("MPI_Intercomm_merge with a NULL newintracomm", rc, out, MPI_ERR_ARG, size);
    TRY(MPI_Intercomm_merge(inter, !low(), &c));
    int r;
    TRY(MPI_Comm_rank(c, &r));
    EQ(r, rank, "the rank in MPI_Intercomm_merge's result after the failure");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Comm_free(&inter));
    TRY(MPI_Comm_free(&half));
    passed("null result merge");
}

/* nullfromgroup passes NULL for the new communicator's address at rank
 * BAD to MPI_Comm_create_from_group, which makes it as
 * MPI_Comm_create_group does: rank BAD makes it anyway and frees it, and
 * the others succeed. */
static void nullfromgroup(void) {
    MPI_Group world;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc = MPI_Comm_create_from_group(world, "badargs.fromgroup", MPI_INFO_NULL, handler(), out);
    alone("MPI_Comm_create_from_group with a NULL newcomm", rc, out, MPI_ERR_ARG, size);
    TRY(MPI_Comm_create_from_group(world, "badargs.fromgroup", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int n;
    TRY(MPI_Comm_size(c, &n));
    EQ(n, size, "MPI_Comm_create_from_group's size after the failure");
    TRY(MPI_Comm_free(&c));
    TRY(MPI_Group_free(&world));
    passed("null result from group");
}

/* nullfromgroups is nullinter for MPI_Intercomm_create_from_groups. */
static void nullfromgroups(void) {
    MPI_Group world, lo, hi, solo, rest;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int lows[1][3] = {{0, BAD, 1}}, highs[1][3] = {{BAD + 1, size - 1, 1}}, bad = BAD;
    TRY(MPI_Group_range_incl(world, 1, lows, &lo));
    TRY(MPI_Group_range_incl(world, 1, highs, &hi));
    TRY(MPI_Group_incl(world, 1, &bad, &solo));
    TRY(MPI_Group_excl(world, 1, &bad, &rest));
    MPI_Group mine = low() ? lo : hi, theirs = low() ? hi : lo;
    const char *tag = "badargs.fromgroups";
    MPI_Comm c = MPI_COMM_WORLD, *out = rank == BAD ? NULL : &c;
    int rc = MPI_Intercomm_create_from_groups(mine, 0, theirs, 0, tag, MPI_INFO_NULL, handler(), out);
    nulled("MPI_Intercomm_create_from_groups", rc, c);
    c = MPI_COMM_WORLD;
    rc = MPI_Intercomm_create_from_groups(mine, low() ? BAD : 0, theirs, low() ? 0 : BAD, tag, MPI_INFO_NULL,
                                          handler(), out);
    nulled("MPI_Intercomm_create_from_groups, the bad rank its group's leader,", rc, c);
    c = MPI_COMM_WORLD;
    rc = MPI_Intercomm_create_from_groups(rank == BAD ? solo : rest, 0, rank == BAD ? rest : solo, 0, tag,
                                          MPI_INFO_NULL, handler(), out);
    alone("MPI_Intercomm_create_from_groups with a NULL newintercomm alone in its group", rc, out, MPI_ERR_ARG,
          size - 1);
    TRY(MPI_Intercomm_create_from_groups(mine, 0, theirs, 0, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int n;
    TRY(MPI_Comm_remote_size(c, &n));
    EQ(n, low() ? size - BAD - 1 : BAD + 1, "MPI_Intercomm_create_from_groups' remote size after the failures");
    TRY(MPI_Comm_free(&c));
    MPI_Group *gs[] = {&lo, &hi, &solo, &rest, &world};
    for (int i = 0; i < 5; i++)
        TRY(MPI_Group_free(gs[i]));
    passed("null result from groups");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size > BAD + 1 && size <= 64, "needs %d to 64 ranks, has %d", BAD + 2, size);
    const char *f = getenv("BADARGS_FATAL");
    if (f != NULL) {
        fatal_rank = atoi(f);
        const char *colon = strchr(f, ':');
        CHECK(colon != NULL, "BADARGS_FATAL is %s (want <rank>:<part>)", f);
        fatal_part = colon + 1;
    }
    if (part("cart"))
        cart();
    if (part("graph"))
        graph();
    if (part("distgraph"))
        distgraph();
    if (part("create"))
        create();
    if (part("splittype"))
        splittype();
    if (part("intercomm"))
        intercomm();
    if (part("nullout"))
        nullout();
    if (part("nullsplit"))
        nullsplit();
    if (part("dup"))
        dupnull();
    if (part("dupinfo"))
        dupinfo();
    if (part("idup"))
        idupnull();
    if (part("idupinfo"))
        idupinfo();
    if (part("creategroup"))
        creategroup();
    if (part("nullinter"))
        nullinter();
    if (part("nullmerge"))
        nullmerge();
    if (part("nullfromgroup"))
        nullfromgroup();
    if (part("nullfromgroups"))
        nullfromgroups();
    TRY(MPI_Finalize());
    return 0;
}
