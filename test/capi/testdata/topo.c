/* Process topologies through the C library: Dims_create, Cartesian
 * grids, graphs, distributed graphs (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY),
 * Topo_test, and the errors of bad arguments. Runs on 2 or more ranks. */
#include "check.h"

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are sentinel addresses, which gcc
 * takes for arrays of no room. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

static int topo(MPI_Comm c) {
    int t;
    TRY(MPI_Topo_test(c, &t));
    return t;
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    int dims[2] = {0, 0};
    TRY(MPI_Dims_create(size, 2, dims));
    CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d for %d", dims[0], dims[1], size);
    int fixed[2] = {0, 1};
    TRY(MPI_Dims_create(size, 2, fixed));
    CHECK(fixed[0] == size && fixed[1] == 1, "dims with one given");
    passed("dims create");

    /* A grid periodic in its first dimension. */
    int periods[2] = {1, 0};
    MPI_Comm cart;
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK(topo(cart) == MPI_CART && topo(MPI_COMM_WORLD) == MPI_UNDEFINED, "topo test");
    int nd, gd[2], gp[2], gc[2], c[2], r;
    TRY(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "MPI_Cartdim_get: %d", nd);
    TRY(MPI_Cart_get(cart, 2, gd, gp, gc));
    int c0 = rank / dims[1], c1 = rank % dims[1];
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 && gc[0] == c0 && gc[1] == c1,
          "cart get: dims %d %d periods %d %d coords %d %d", gd[0], gd[1], gp[0], gp[1], gc[0], gc[1]);
    TRY(MPI_Cart_coords(cart, rank, 2, c));
    CHECK(c[0] == c0 && c[1] == c1, "MPI_Cart_coords");
    TRY(MPI_Cart_rank(cart, c, &r));
    CHECK(r == rank, "MPI_Cart_rank: %d", r);
    c[0] += dims[0]; /* wraps round the periodic dimension */
    TRY(MPI_Cart_rank(cart, c, &r));
    CHECK(r == rank, "MPI_Cart_rank past the periodic edge: %d", r);
    int src, dst;
    TRY(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(src == ((c0 + dims[0] - 1) % dims[0]) * dims[1] + c1 && dst == ((c0 + 1) % dims[0]) * dims[1] + c1,
          "periodic shift: %d %d", src, dst);
    TRY(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK(src == (c1 > 0 ? rank - 1 : MPI_PROC_NULL) && dst == (c1 < dims[1] - 1 ? rank + 1 : MPI_PROC_NULL),
          "non-periodic shift: %d %d", src, dst);
    TRY(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r));
    CHECK(r == rank, "MPI_Cart_map: %d", r);
    int remain[2] = {1, 0};
    MPI_Comm sub;
    TRY(MPI_Cart_sub(cart, remain, &sub));
    int n;
    TRY(MPI_Comm_size(sub, &n));
    TRY(MPI_Comm_rank(sub, &r));
    CHECK(n == dims[0] && r == c0 && topo(sub) == MPI_CART, "cart sub: size %d rank %d", n, r);
    TRY(MPI_Cartdim_get(sub, &nd));
    CHECK(nd == 1, "sub grid of %d dimensions", nd);
    TRY(MPI_Comm_free(&sub));

    /* A line of size-1 places: the last rank has none. */
    int line = size - 1, open = 0;
    MPI_Comm lc;
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &open, 1, &lc));
    CHECK((lc == MPI_COMM_NULL) == (rank == size - 1), "only the last rank is outside the line");
    if (lc != MPI_COMM_NULL)
        TRY(MPI_Comm_free(&lc));
    TRY(MPI_Cart_map(MPI_COMM_WORLD, 1, &line, &open, &r));
    CHECK(r == (rank == size - 1 ? MPI_UNDEFINED : rank), "cart map of a line: %d", r);
    passed("cart");

    /* A ring as a graph: node i's neighbours are i+1 and i-1. */
    int *index = malloc(size * sizeof(int)), *edges = malloc(2 * size * sizeof(int));
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % size;
        edges[2 * i + 1] = (i + size - 1) % size;
    }
    MPI_Comm graph;
    TRY(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
    CHECK(topo(graph) == MPI_GRAPH, "a graph's topology");
    int nn, ne;
    TRY(MPI_Graphdims_get(graph, &nn, &ne));
    CHECK(nn == size && ne == 2 * size, "MPI_Graphdims_get: %d %d", nn, ne);
    int *gi = malloc(size * sizeof(int)), *ge = malloc(2 * size * sizeof(int));
    TRY(MPI_Graph_get(graph, size, 2 * size, gi, ge));
    for (int i = 0; i < size; i++)
        CHECK(gi[i] == index[i] && ge[2 * i] == edges[2 * i] && ge[2 * i + 1] == edges[2 * i + 1], "graph get: node %d", i);
    int nb[2];
    TRY(MPI_Graph_neighbors_count(graph, rank, &n));
    CHECK(n == 2, "MPI_Graph_neighbors_count: %d", n);
    TRY(MPI_Graph_neighbors(graph, rank, 2, nb));
    CHECK(nb[0] == right && nb[1] == left, "MPI_Graph_neighbors: %d %d", nb[0], nb[1]);
    TRY(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &r));
    CHECK(r == rank, "MPI_Graph_map: %d", r);
    passed("graph");

    /* The ring as a distributed graph: in from the left, out to the right. */
    MPI_Comm dg, dgw, dgc, dge;
    TRY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    CHECK(topo(dg) == MPI_DIST_GRAPH, "a distributed graph's topology");
    int in, out, weighted;
    TRY(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "unweighted counts: %d %d %d", in, out, weighted);
    int s, d, sw = -1, dw = -1;
    TRY(MPI_Dist_graph_neighbors(dg, 1, &s, MPI_UNWEIGHTED, 1, &d, MPI_UNWEIGHTED));
    CHECK(s == left && d == right, "unweighted neighbours: %d %d", s, d);
    int w7 = 7, w9 = 9;
    TRY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w7, 1, &right, &w9, MPI_INFO_NULL, 0, &dgw));
    TRY(MPI_Dist_graph_neighbors_count(dgw, &in, &out, &weighted));
    CHECK(weighted, "weighted counts");
    TRY(MPI_Dist_graph_neighbors(dgw, 1, &s, &sw, 1, &d, &dw));
    CHECK(s == left && sw == 7 && d == right && dw == 9, "weighted neighbours: %d (%d) %d (%d)", s, sw, d, dw);
    int one = 1;
    TRY(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dgc));
    TRY(MPI_Dist_graph_neighbors_count(dgc, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "created counts: %d %d %d", in, out, weighted);
    TRY(MPI_Dist_graph_neighbors(dgc, 1, &s, MPI_UNWEIGHTED, 1, &d, MPI_UNWEIGHTED));
    CHECK(s == left && d == right, "created neighbours: %d %d", s, d);
    TRY(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dge));
    TRY(MPI_Dist_graph_neighbors_count(dge, &in, &out, &weighted));
    CHECK(in == 0 && out == 0 && weighted, "empty weighted counts: %d %d %d", in, out, weighted);
    passed("dist graph");

    int bad[2] = {size + 1, 0};
    RC(MPI_Dims_create(size, 2, bad), MPI_ERR_DIMS);
    RC(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    RC(MPI_Graphdims_get(cart, &nn, &ne), MPI_ERR_TOPOLOGY);
    RC(MPI_Cart_coords(cart, size, 2, c), MPI_ERR_RANK);
    RC(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_DIMS);
    int big = size + 1;
    RC(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &open, 0, &lc), MPI_ERR_DIMS);
    RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_WEIGHTS_EMPTY, 1, &right, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                                      &lc),
       MPI_ERR_ARG);
    passed("topo errors");

    MPI_Comm all[] = {cart, graph, dg, dgw, dgc, dge};
    for (int i = 0; i < (int)(sizeof all / sizeof all[0]); i++)
        TRY(MPI_Comm_free(&all[i]));
    free(index);
    free(edges);
    free(gi);
    free(ge);
    TRY(MPI_Finalize());
    return 0;
}
