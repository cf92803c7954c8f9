/* The w-forms through the C library: MPI_Alltoallw and
 * MPI_Neighbor_alltoallw, blocking, non-blocking and persistent, each also
 * in its _c form, with a datatype and a byte displacement per block (a
 * vector type beside MPI_INT, zero counts), in
 * place, on a periodic ring; and their errors. Runs on 2 or more ranks. */
#include "forms.h"

static int rank, size;

/* vec is two ints with one between them, its extent three ints: element
 * e of a block of vec is the ints at 3e and 3e+2. */
static MPI_Datatype vec;

/* at is where int e of a block lies, in ints from its start. */
static int at(int is_vec, int e) { return is_vec ? (e / 2) * 3 + (e % 2) * 2 : e; }

/* Rank s sends rank d amount(s, d) ints, 0, 2 or 4: 0 for some ranks to
 * themselves. Their values are s*100 + d*10 + e. */
static int amount(int s, int d) { return 2 * ((s + d) % 3); }

/* A block's room: 16 ints, more than 4 ints of vec span. */
#define ROOM 16

/* alltoallw: to rank j, MPI_INT for even j, vec for odd, blocks in
 * reverse order; from rank j, vec when j%3 == 2, MPI_INT otherwise, one
 * int into each block's room. */
static void alltoallw(enum form f, int large) {
    int n = size;
    int *send = malloc(sizeof(int) * ROOM * n), *recv = malloc(sizeof(int) * ROOM * n);
    int *sc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n), *rc = malloc(sizeof(int) * n), *rd = malloc(sizeof(int) * n);
    MPI_Count *csc = malloc(sizeof(MPI_Count) * n), *crc = malloc(sizeof(MPI_Count) * n);
    MPI_Aint *csd = malloc(sizeof(MPI_Aint) * n), *crd = malloc(sizeof(MPI_Aint) * n);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * n), *rt = malloc(sizeof(MPI_Datatype) * n);
    for (int i = 0; i < ROOM * n; i++)
        send[i] = recv[i] = -1;
    for (int j = 0; j < n; j++) {
        int k = amount(rank, j), sv = j % 2, base = (n - 1 - j) * ROOM;
        sc[j] = sv ? k / 2 : k;
        st[j] = sv ? vec : MPI_INT;
        sd[j] = base * (int)sizeof(int);
        for (int e = 0; e < k; e++)
            send[base + at(sv, e)] = rank * 100 + j * 10 + e;
        int kr = amount(j, rank), rv = j % 3 == 2;
        rc[j] = rv ? kr / 2 : kr;
        rt[j] = rv ? vec : MPI_INT;
        rd[j] = (j * ROOM + 1) * (int)sizeof(int);
        csc[j] = sc[j], crc[j] = rc[j], csd[j] = sd[j], crd[j] = rd[j];
    }
    MPI_Request req;
    int err;
    if (!large)
        err = f == BLOCKING      ? MPI_Alltoallw(send, sc, sd, st, recv, rc, rd, rt, MPI_COMM_WORLD)
              : f == NONBLOCKING ? MPI_Ialltoallw(send, sc, sd, st, recv, rc, rd, rt, MPI_COMM_WORLD, &req)
                                 : MPI_Alltoallw_init(send, sc, sd, st, recv, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING      ? MPI_Alltoallw_c(send, csc, csd, st, recv, crc, crd, rt, MPI_COMM_WORLD)
              : f == NONBLOCKING ? MPI_Ialltoallw_c(send, csc, csd, st, recv, crc, crd, rt, MPI_COMM_WORLD, &req)
                                 : MPI_Alltoallw_init_c(send, csc, csd, st, recv, crc, crd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s alltoallw%s", forms[f], large ? "_c" : "");
    complete(f, &req, recv, ROOM * n);
    for (int j = 0; j < n; j++) {
        int kr = amount(j, rank), rv = j % 3 == 2, base = j * ROOM + 1;
        int want[ROOM];
        for (int i = 0; i < ROOM; i++)
            want[i] = -1;
        for (int e = 0; e < kr; e++)
            want[at(rv, e)] = j * 100 + rank * 10 + e;
        for (int i = 0; i < ROOM && base + i < ROOM * n; i++)
            CHECK(recv[base + i] == want[i], "%s alltoallw%s: from rank %d, int %d of its room is %d, want %d", forms[f],
                  large ? "_c" : "", j, i, recv[base + i], want[i]);
    }
    free(send), free(recv), free(sc), free(sd), free(rc), free(rd), free(csc), free(crc), free(csd), free(crd), free(st), free(rt);
}

/* from_bottom: alltoallw from and to MPI_BOTTOM, each block its own
 * allocation (and one on the stack), named by a struct type of its
 * absolute address, as MPI_Get_address gives it; two ints each way. */
static void from_bottom(enum form f) {
    int n = size, on_stack[2] = {-1, -1};
    int **send = malloc(sizeof(int *) * n), **recv = malloc(sizeof(int *) * n);
    int *ones = malloc(sizeof(int) * n), *zero = calloc(n, sizeof(int));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * n), *rt = malloc(sizeof(MPI_Datatype) * n);
    for (int j = 0; j < n; j++) {
        send[j] = malloc(2 * sizeof(int));
        recv[j] = j == n - 1 ? on_stack : malloc(2 * sizeof(int));
        send[j][0] = rank * 100 + j * 10, send[j][1] = rank * 100 + j * 10 + 1;
        recv[j][0] = recv[j][1] = -1;
        MPI_Aint a;
        int one = 1;
        MPI_Datatype pair;
        TRY(MPI_Type_contiguous(2, MPI_INT, &pair));
        TRY(MPI_Get_address(send[j], &a));
        TRY(MPI_Type_create_struct(1, &one, &a, &pair, &st[j]));
        TRY(MPI_Get_address(recv[j], &a));
        TRY(MPI_Type_create_struct(1, &one, &a, &pair, &rt[j]));
        TRY(MPI_Type_commit(&st[j]));
        TRY(MPI_Type_commit(&rt[j]));
        TRY(MPI_Type_free(&pair));
        ones[j] = 1;
    }
    MPI_Request req;
    int err = f == BLOCKING      ? MPI_Alltoallw(MPI_BOTTOM, ones, zero, st, MPI_BOTTOM, ones, zero, rt, MPI_COMM_WORLD)
              : f == NONBLOCKING ? MPI_Ialltoallw(MPI_BOTTOM, ones, zero, st, MPI_BOTTOM, ones, zero, rt, MPI_COMM_WORLD, &req)
                                 : MPI_Alltoallw_init(MPI_BOTTOM, ones, zero, st, MPI_BOTTOM, ones, zero, rt, MPI_COMM_WORLD,
                                                      MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s alltoallw from MPI_BOTTOM", forms[f]);
    complete(f, &req, NULL, 0);
    for (int j = 0; j < n; j++) {
        CHECK(recv[j][0] == j * 100 + rank * 10 && recv[j][1] == j * 100 + rank * 10 + 1,
              "%s alltoallw from MPI_BOTTOM: from rank %d, %d and %d, want %d and %d", forms[f], j, recv[j][0],
              recv[j][1], j * 100 + rank * 10, j * 100 + rank * 10 + 1);
        TRY(MPI_Type_free(&st[j]));
        TRY(MPI_Type_free(&rt[j]));
        free(send[j]);
        if (recv[j] != on_stack)
            free(recv[j]);
    }
    free(send), free(recv), free(ones), free(zero), free(st), free(rt);
}

/* alltoallw in place: block j of buf, vec for odd j, is sent to rank j
 * and replaced by what rank j sends back, amount(rank, j) ints both ways. */
static void in_place(enum form f) {
    int n = size;
    int *buf = malloc(sizeof(int) * ROOM * n), *c = malloc(sizeof(int) * n), *d = malloc(sizeof(int) * n);
    MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * n);
    for (int i = 0; i < ROOM * n; i++)
        buf[i] = -1;
    for (int j = 0; j < n; j++) {
        int k = amount(rank, j), v = j % 2;
        c[j] = v ? k / 2 : k;
        t[j] = v ? vec : MPI_INT;
        d[j] = j * ROOM * (int)sizeof(int);
        for (int e = 0; e < k; e++)
            buf[j * ROOM + at(v, e)] = rank * 100 + j * 10 + e;
    }
    MPI_Request req;
    int err = f == BLOCKING      ? MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, c, d, t, MPI_COMM_WORLD)
              : f == NONBLOCKING ? MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, c, d, t, MPI_COMM_WORLD, &req)
                                 : MPI_Alltoallw_init(MPI_IN_PLACE, NULL, NULL, NULL, buf, c, d, t, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s alltoallw in place", forms[f]);
    if (f == PERSISTENT) {
        /* Each start sends what the buffer holds then: the second sends
         * back what the first brought, so each block is as it began. */
        TRY(MPI_Start(&req));
        TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TRY(MPI_Start(&req));
        TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TRY(MPI_Request_free(&req));
    } else if (f == NONBLOCKING)
        TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < n; j++) {
        int k = amount(rank, j), v = j % 2;
        for (int e = 0; e < k; e++) {
            int want = f == PERSISTENT ? rank * 100 + j * 10 + e : j * 100 + rank * 10 + e;
            int got = buf[j * ROOM + at(v, e)];
            CHECK(got == want, "%s alltoallw in place: int %d from rank %d is %d, want %d", forms[f], e, j, got, want);
        }
    }
    free(buf), free(c), free(d), free(t);
}

/* On the periodic ring, neighbour 0 is the left and 1 the right. Two
 * ints go left as MPI_INT, two go right as one vec; from the left they
 * arrive as MPI_INT at byte 4, from the right as one vec at byte 32. */
static void ring(MPI_Comm cart, enum form f, int large) {
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int send[8] = {rank * 10, rank * 10 + 1, -1, -1, -1, rank * 10 + 2, -1, rank * 10 + 3}, recv[16];
    for (int i = 0; i < 16; i++)
        recv[i] = -1;
    int sc[2] = {2, 1}, rc[2] = {2, 1};
    MPI_Count csc[2] = {2, 1}, crc[2] = {2, 1};
    MPI_Aint sd[2] = {0, 5 * sizeof(int)}, rd[2] = {sizeof(int), 8 * sizeof(int)};
    MPI_Datatype st[2] = {MPI_INT, vec}, rt[2] = {MPI_INT, vec};
    MPI_Request req;
    int err;
    if (!large)
        err = f == BLOCKING      ? MPI_Neighbor_alltoallw(send, sc, sd, st, recv, rc, rd, rt, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_alltoallw(send, sc, sd, st, recv, rc, rd, rt, cart, &req)
                                 : MPI_Neighbor_alltoallw_init(send, sc, sd, st, recv, rc, rd, rt, cart, MPI_INFO_NULL, &req);
    else
        err = f == BLOCKING      ? MPI_Neighbor_alltoallw_c(send, csc, sd, st, recv, crc, rd, rt, cart)
              : f == NONBLOCKING ? MPI_Ineighbor_alltoallw_c(send, csc, sd, st, recv, crc, rd, rt, cart, &req)
                                 : MPI_Neighbor_alltoallw_init_c(send, csc, sd, st, recv, crc, rd, rt, cart, MPI_INFO_NULL, &req);
    CHECK(err == MPI_SUCCESS, "%s neighbor alltoallw%s", forms[f], large ? "_c" : "");
    complete(f, &req, recv, 16);
    int want[16];
    for (int i = 0; i < 16; i++)
        want[i] = -1;
    want[1] = left * 10 + 2, want[2] = left * 10 + 3;   /* what the left sent right */
    want[8] = right * 10, want[10] = right * 10 + 1;    /* what the right sent left */
    for (int i = 0; i < 16; i++)
        CHECK(recv[i] == want[i], "%s neighbor alltoallw%s: int %d is %d, want %d", forms[f], large ? "_c" : "", i, recv[i], want[i]);
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);
    TRY(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    TRY(MPI_Type_commit(&vec));

    for (int large = 0; large <= 1; large++)
        for (int f = 0; f < NFORMS; f++)
            alltoallw(f, large);
    passed("alltoallw with a vector type, MPI_INT and zero counts");
    for (int f = 0; f < NFORMS; f++)
        in_place(f);
    passed("alltoallw in place");
    for (int f = 0; f < NFORMS; f++)
        from_bottom(f);
    passed("alltoallw from MPI_BOTTOM");

    MPI_Comm cart;
    int periodic = 1;
    TRY(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &cart));
    for (int large = 0; large <= 1; large++)
        for (int f = 0; f < NFORMS; f++)
            ring(cart, f, large);
    passed("neighbor alltoallw on a ring");
    /* From MPI_BOTTOM with predefined types, the MPI_Aint displacements
     * being the addresses. */
    int sl = rank * 10 + 1, sr = rank * 10 + 2, rl = -1, rr = -1, ones2[2] = {1, 1};
    MPI_Aint sa[2], ra[2];
    MPI_Datatype ints2[2] = {MPI_INT, MPI_INT};
    TRY(MPI_Get_address(&sl, &sa[0]));
    TRY(MPI_Get_address(&sr, &sa[1]));
    TRY(MPI_Get_address(&rl, &ra[0]));
    TRY(MPI_Get_address(&rr, &ra[1]));
    TRY(MPI_Neighbor_alltoallw(MPI_BOTTOM, ones2, sa, ints2, MPI_BOTTOM, ones2, ra, ints2, cart));
    int lft = (rank + size - 1) % size, rgt = (rank + 1) % size;
    CHECK(rl == lft * 10 + 2 && rr == rgt * 10 + 1, "neighbor alltoallw from MPI_BOTTOM: %d and %d, want %d and %d", rl,
          rr, lft * 10 + 2, rgt * 10 + 1);
    passed("neighbor alltoallw from MPI_BOTTOM");

    /* Errors every rank makes alike, found before any message. */
    MPI_Datatype loose;
    TRY(MPI_Type_vector(2, 1, 3, MPI_INT, &loose));
    int *buf = calloc(16 * size, sizeof(int)), *rbuf = calloc(16 * size, sizeof(int)), *one = malloc(sizeof(int) * size), *zero = calloc(size, sizeof(int));
    int *neg = malloc(sizeof(int) * size);
    MPI_Datatype *ints = malloc(sizeof(MPI_Datatype) * size), *looses = malloc(sizeof(MPI_Datatype) * size);
    for (int j = 0; j < size; j++)
        one[j] = 1, neg[j] = j == size - 1 ? -1 : 1, ints[j] = MPI_INT, looses[j] = loose;
    int *byte = malloc(sizeof(int) * size);
    for (int j = 0; j < size; j++)
        byte[j] = j * 16 * (int)sizeof(int);
    RC(MPI_Alltoallw(buf, one, byte, looses, rbuf, one, byte, ints, MPI_COMM_WORLD), MPI_ERR_TYPE);
    RC(MPI_Alltoallw(buf, one, byte, ints, rbuf, neg, byte, ints, MPI_COMM_WORLD), MPI_ERR_COUNT);
    RC(MPI_Alltoallw(buf, one, byte, NULL, rbuf, one, byte, ints, MPI_COMM_WORLD), MPI_ERR_ARG);
    MPI_Aint nd[2] = {0, 0};
    int n2[2] = {1, 1};
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
    RC(MPI_Neighbor_alltoallw(buf, n2, nd, t2, rbuf, n2, nd, t2, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    RC(MPI_Neighbor_alltoallw(MPI_IN_PLACE, n2, nd, t2, rbuf, n2, nd, t2, cart), MPI_ERR_BUFFER);
    /* All counts 0: nothing moves, but the types must be usable, as Open
     * MPI and MPICH have them; MPI_DATATYPE_NULL stands for no data there,
     * as MPICH takes it and codes written for it (PIO) pass it. */
    TRY(MPI_Alltoallw(NULL, zero, zero, ints, NULL, zero, zero, ints, MPI_COMM_WORLD));
    RC(MPI_Alltoallw(NULL, zero, zero, looses, NULL, zero, zero, ints, MPI_COMM_WORLD), MPI_ERR_TYPE);
    for (int j = 0; j < size; j++)
        looses[j] = MPI_DATATYPE_NULL;
    TRY(MPI_Alltoallw(NULL, zero, zero, ints, NULL, zero, zero, looses, MPI_COMM_WORLD));
    RC(MPI_Alltoallw(buf, one, byte, ints, rbuf, one, byte, looses, MPI_COMM_WORLD), MPI_ERR_TYPE);
    passed("alltoallw errors");

    TRY(MPI_Type_free(&loose));
    TRY(MPI_Type_free(&vec));
    TRY(MPI_Comm_free(&cart));
    free(buf), free(rbuf), free(one), free(zero), free(neg), free(ints), free(looses), free(byte);
    TRY(MPI_Finalize());
    return 0;
}
