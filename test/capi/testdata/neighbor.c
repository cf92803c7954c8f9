/* Neighbourhood collectives through the C library: Neighbor_allgather(v)
 * and Neighbor_alltoall(v), blocking, non-blocking and persistent, each
 * also in its _c form, on a periodic ring (a Cartesian grid) and a
 * one-way distributed graph; and their errors. Runs on 2 or more ranks. */
#include "forms.h"

/* MPI_UNWEIGHTED is a sentinel address, which gcc takes for an array of
 * no room. */
#pragma GCC diagnostic ignored "-Wstringop-overread"

static int rank, size, left, right;

/* On the ring, source and destination 0 are the left neighbour and 1 the
 * right; send[i] is rank*10+i. */
static void ring(MPI_Comm cart, enum form f, int large) {
    int send[2] = {rank * 10, rank * 10 + 1}, recv[2] = {-1, -1};
    MPI_Request req;
    const char *how = forms[f];

    /* allgather: each neighbour's rank. */
    int err;
    if (!large)
        err = f == BLOCKING      ? MPI_Neighbor_allgather(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_allgather(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart, &req)
                                 : MPI_Neighbor_allgather_init(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart, MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING      ? MPI_Neighbor_allgather_c(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_allgather_c(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart, &req)
                                 : MPI_Neighbor_allgather_init_c(&rank, 1, MPI_INT, recv, 1, MPI_INT, cart, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s neighbor allgather%s", how, large ? "_c" : "");
    complete(f, &req, recv, 2);
    CHECK(recv[0] == left && recv[1] == right, "%s allgather%s: %d %d (want %d %d)", how, large ? "_c" : "", recv[0], recv[1], left, right);

    /* allgatherv, the blocks swapped. */
    int counts[2] = {1, 1}, displs[2] = {1, 0};
    MPI_Count ccounts[2] = {1, 1};
    MPI_Aint cdispls[2] = {1, 0};
    recv[0] = recv[1] = -1;
    if (!large)
        err = f == BLOCKING      ? MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, recv, counts, displs, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_allgatherv(&rank, 1, MPI_INT, recv, counts, displs, MPI_INT, cart, &req)
                                 : MPI_Neighbor_allgatherv_init(&rank, 1, MPI_INT, recv, counts, displs, MPI_INT, cart, MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING      ? MPI_Neighbor_allgatherv_c(&rank, 1, MPI_INT, recv, ccounts, cdispls, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_allgatherv_c(&rank, 1, MPI_INT, recv, ccounts, cdispls, MPI_INT, cart, &req)
                                 : MPI_Neighbor_allgatherv_init_c(&rank, 1, MPI_INT, recv, ccounts, cdispls, MPI_INT, cart, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s neighbor allgatherv%s", how, large ? "_c" : "");
    complete(f, &req, recv, 2);
    CHECK(recv[1] == left && recv[0] == right, "%s allgatherv%s: %d %d (want %d %d)", how, large ? "_c" : "", recv[0], recv[1], right, left);

    /* alltoall: block 0 goes left, 1 right; from the left comes its
     * block 1, from the right its block 0. */
    recv[0] = recv[1] = -1;
    if (!large)
        err = f == BLOCKING      ? MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart, &req)
                                 : MPI_Neighbor_alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, cart, MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING      ? MPI_Neighbor_alltoall_c(send, 1, MPI_INT, recv, 1, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_alltoall_c(send, 1, MPI_INT, recv, 1, MPI_INT, cart, &req)
                                 : MPI_Neighbor_alltoall_init_c(send, 1, MPI_INT, recv, 1, MPI_INT, cart, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s neighbor alltoall%s", how, large ? "_c" : "");
    complete(f, &req, recv, 2);
    CHECK(recv[0] == left * 10 + 1 && recv[1] == right * 10, "%s alltoall%s: %d %d", how, large ? "_c" : "", recv[0], recv[1]);

    /* alltoallv: send[1] goes left, send[0] right. */
    int sdispls[2] = {1, 0}, rdispls[2] = {0, 1};
    MPI_Aint csdispls[2] = {1, 0}, crdispls[2] = {0, 1};
    recv[0] = recv[1] = -1;
    if (!large)
        err = f == BLOCKING      ? MPI_Neighbor_alltoallv(send, counts, sdispls, MPI_INT, recv, counts, rdispls, MPI_INT, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_alltoallv(send, counts, sdispls, MPI_INT, recv, counts, rdispls, MPI_INT, cart, &req)
                                 : MPI_Neighbor_alltoallv_init(send, counts, sdispls, MPI_INT, recv, counts, rdispls, MPI_INT, cart,
                                                               MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING ? MPI_Neighbor_alltoallv_c(send, ccounts, csdispls, MPI_INT, recv, ccounts, crdispls, MPI_INT, cart)
              : f == NONBLOCKING
                  ? MPI_Ineighbor_alltoallv_c(send, ccounts, csdispls, MPI_INT, recv, ccounts, crdispls, MPI_INT, cart, &req)
                  : MPI_Neighbor_alltoallv_init_c(send, ccounts, csdispls, MPI_INT, recv, ccounts, crdispls, MPI_INT, cart,
                                                  MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s neighbor alltoallv%s", how, large ? "_c" : "");
    complete(f, &req, recv, 2);
    CHECK(recv[0] == left * 10 && recv[1] == right * 10 + 1, "%s alltoallv%s: %d %d", how, large ? "_c" : "", recv[0], recv[1]);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    MPI_Comm cart;
    int periodic = 1;
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &cart));
    for (int large = 0; large <= 1; large++)
        for (int f = 0; f < NFORMS; f++)
            ring(cart, f, large);
    passed("neighbor collectives on a ring");

    /* A one-way ring: in from the left, out to the right, two ints. */
    MPI_Comm dg;
    TRY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    int two[2] = {rank, -rank}, got[2] = {-1, -1};
    TRY(MPI_Neighbor_allgather(two, 2, MPI_INT, got, 2, MPI_INT, dg));
    CHECK(got[0] == left && got[1] == -left, "one-way allgather: %d %d", got[0], got[1]);
    int c2[1] = {2}, d0[1] = {0};
    got[0] = got[1] = -1;
    TRY(MPI_Neighbor_alltoallv(two, c2, d0, MPI_INT, got, c2, d0, MPI_INT, dg));
    CHECK(got[0] == left && got[1] == -left, "one-way alltoallv: %d %d", got[0], got[1]);
    passed("neighbor collectives on a one-way ring");

    int r[2];
    RC(MPI_Neighbor_allgather(&rank, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    RC(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, cart), MPI_ERR_BUFFER);
    MPI_Request req;
    RC(MPI_Ineighbor_alltoallv(r, NULL, NULL, MPI_INT, r, c2, d0, MPI_INT, cart, &req), MPI_ERR_ARG);
    passed("neighbor errors");

    TRY(MPI_Comm_free(&cart));
    TRY(MPI_Comm_free(&dg));
    TRY(MPI_Finalize());
    return 0;
}
