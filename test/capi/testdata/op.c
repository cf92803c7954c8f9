/* User operations written in C: a non-commutative one, the product of
 * 2x2 matrices, whose result depends on the ranks' order, and a
 * commutative one on a struct. The Go test runs this program under each
 * coll component. opc.c checks MPI_Op_create_c. */
#include "check.h"

/* A 2x2 matrix of unsigned ints, whose products wrap around. */
typedef struct {
    unsigned a, b, c, d;
} mat;

static MPI_Datatype mat_type;
static int wrong_type; /* calls with another datatype than mat_type */

/* matmul: inout = in x inout, in coming from the lower ranks. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
    mat *in = invec, *io = inoutvec;
    if (*dt != mat_type)
        wrong_type++;
    for (int i = 0; i < *len; i++) {
        mat x = in[i], y = io[i];
        io[i].a = x.a * y.a + x.b * y.c;
        io[i].b = x.a * y.b + x.b * y.d;
        io[i].c = x.c * y.a + x.d * y.c;
        io[i].d = x.c * y.b + x.d * y.d;
    }
}

static mat mul(mat x, mat y) {
    mat r;
    int one = 1;
    r = y;
    matmul(&x, &r, &one, &mat_type);
    return r;
}

/* rank r's matrix for element i: no two of them commute. */
static mat of(int r, int i) { return (mat){r + 2u + i, 1, 3u * i + 1, r + 1u}; }

/* product of the matrices of ranks from..to-1, in order. */
static mat product(int from, int to, int i) {
    mat p = {1, 0, 0, 1};
    for (int r = from; r < to; r++)
        p = mul(p, of(r, i));
    return p;
}

static int same(mat x, mat y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

/* stats: a count, a sum and the largest value seen, merged in any order. */
typedef struct {
    int count, sum, max;
} stats;

static MPI_Datatype stats_type;

static void merge(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
    stats *in = invec, *io = inoutvec;
    if (*dt != stats_type)
        wrong_type++;
    for (int i = 0; i < *len; i++) {
        io[i].count += in[i].count;
        io[i].sum += in[i].sum;
        if (in[i].max > io[i].max)
            io[i].max = in[i].max;
    }
}

#define K 3      /* matrices per rank in the small calls */
#define BIG 2000 /* and in the large ones, which algorithms cut into pieces */

/* typed_max: a maximum over the integer types of one size that C names
 * apart, each dispatched on the handle the call was given. */
static MPI_Datatype want_type;

static void typed_max(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
    if (*dt != want_type) {
        wrong_type++;
        return;
    }
    if (*dt == MPI_LONG_LONG || *dt == MPI_INT64_T) {
        long long *in = invec, *io = inoutvec;
        for (int i = 0; i < *len; i++)
            io[i] = in[i] > io[i] ? in[i] : io[i];
    } else if (*dt == MPI_UNSIGNED_CHAR || *dt == MPI_UINT8_T || *dt == MPI_CHAR) {
        unsigned char *in = invec, *io = inoutvec;
        for (int i = 0; i < *len; i++)
            io[i] = in[i] > io[i] ? in[i] : io[i];
    } else if (*dt == MPI_INT32_T) {
        int *in = invec, *io = inoutvec;
        for (int i = 0; i < *len; i++)
            io[i] = in[i] > io[i] ? in[i] : io[i];
    } else {
        wrong_type++;
    }
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    int rank = check_rank, size;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    TRY(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
    TRY(MPI_Type_commit(&mat_type));
    TRY(MPI_Type_contiguous(3, MPI_INT, &stats_type));
    TRY(MPI_Type_commit(&stats_type));

    MPI_Op prod, sum;
    int commute = -1;
    TRY(MPI_Op_create(matmul, 0, &prod));
    TRY(MPI_Op_create(merge, 1, &sum));
    TRY(MPI_Op_commutative(prod, &commute));
    EQ(commute, 0, "MPI_Op_commutative of the matrix product");
    TRY(MPI_Op_commutative(sum, &commute));
    EQ(commute, 1, "MPI_Op_commutative of the merge");
    TRY(MPI_Op_commutative(MPI_REPLACE, &commute));
    EQ(commute, 0, "MPI_Op_commutative of MPI_REPLACE");

    static mat in[BIG], out[BIG];
    for (int n = K; n <= BIG; n = n == K ? BIG : BIG + 1) {
        for (int i = 0; i < n; i++)
            in[i] = of(rank, i % K);
        /* Reduce to each root, Allreduce, Scan, Exscan, Ireduce, Iallreduce. */
        for (int root = 0; root < size; root++) {
            memset(out, 0, sizeof out);
            TRY(MPI_Reduce(in, out, n, mat_type, prod, root, MPI_COMM_WORLD));
            if (rank == root)
                for (int i = 0; i < n; i++)
                    CHECK(same(out[i], product(0, size, i % K)), "MPI_Reduce to %d of %d matrices: element %d", root,
                          n, i);
        }
        memset(out, 0, sizeof out);
        TRY(MPI_Allreduce(in, out, n, mat_type, prod, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(same(out[i], product(0, size, i % K)), "MPI_Allreduce of %d matrices: element %d", n, i);
        TRY(MPI_Scan(in, out, n, mat_type, prod, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(same(out[i], product(0, rank + 1, i % K)), "MPI_Scan of %d matrices: element %d", n, i);
        TRY(MPI_Exscan(in, out, n, mat_type, prod, MPI_COMM_WORLD));
        for (int i = 0; rank > 0 && i < n; i++)
            CHECK(same(out[i], product(0, rank, i % K)), "MPI_Exscan of %d matrices: element %d", n, i);
        MPI_Request req;
        memset(out, 0, sizeof out);
        TRY(MPI_Iallreduce(in, out, n, mat_type, prod, MPI_COMM_WORLD, &req));
        TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(same(out[i], product(0, size, i % K)), "MPI_Iallreduce of %d matrices: element %d", n, i);
        TRY(MPI_Ireduce(in, out, n, mat_type, prod, size - 1, MPI_COMM_WORLD, &req));
        TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank == size - 1)
            for (int i = 0; i < n; i++)
                CHECK(same(out[i], product(0, size, i % K)), "MPI_Ireduce of %d matrices: element %d", n, i);
    }
    /* Reduce_scatter_block: rank r gets element r of the product. */
    for (int i = 0; i < size; i++)
        in[i] = of(rank, i % K);
    TRY(MPI_Reduce_scatter_block(in, out, 1, mat_type, prod, MPI_COMM_WORLD));
    CHECK(same(out[0], product(0, size, rank % K)), "MPI_Reduce_scatter_block of matrices");
    /* Reduce_local: in x inout. */
    mat x = of(1, 0), y = of(2, 1);
    TRY(MPI_Reduce_local(&x, &y, 1, mat_type, prod));
    CHECK(same(y, mul(of(1, 0), of(2, 1))), "MPI_Reduce_local of matrices");
    passed("non-commutative");

    static stats s[BIG], r[BIG];
    for (int n = K; n <= BIG; n = n == K ? BIG : BIG + 1) {
        for (int i = 0; i < n; i++)
            s[i] = (stats){1, rank + i, rank * 7 % size + i};
        int max = 0;
        for (int q = 0; q < size; q++)
            if (q * 7 % size > max)
                max = q * 7 % size;
        memset(r, 0, sizeof r);
        TRY(MPI_Allreduce(s, r, n, stats_type, sum, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(r[i].count == size && r[i].sum == size * (size - 1) / 2 + size * i && r[i].max == max + i,
                  "MPI_Allreduce of stats, element %d: {%d %d %d}", i, r[i].count, r[i].sum, r[i].max);
        memset(r, 0, sizeof r);
        TRY(MPI_Reduce(s, r, n, stats_type, sum, 0, MPI_COMM_WORLD));
        for (int i = 0; rank == 0 && i < n; i++)
            CHECK(r[i].count == size && r[i].sum == size * (size - 1) / 2 + size * i && r[i].max == max + i,
                  "MPI_Reduce of stats, element %d: {%d %d %d}", i, r[i].count, r[i].sum, r[i].max);
    }
    passed("commutative");

    /* Types that share one layout reach the function as the program named
     * them. */
    MPI_Op tmax;
    TRY(MPI_Op_create(typed_max, 1, &tmax));
    long long ll = rank, llmax = -1;
    want_type = MPI_LONG_LONG;
    TRY(MPI_Allreduce(&ll, &llmax, 1, MPI_LONG_LONG, tmax, MPI_COMM_WORLD));
    EQ(llmax, size - 1, "MPI_Allreduce of MPI_LONG_LONG by a user maximum");
    want_type = MPI_INT64_T;
    TRY(MPI_Allreduce(&ll, &llmax, 1, MPI_INT64_T, tmax, MPI_COMM_WORLD));
    EQ(llmax, size - 1, "MPI_Allreduce of MPI_INT64_T by a user maximum");
    unsigned char uc = (unsigned char)(200 + rank), ucmax = 0;
    want_type = MPI_UNSIGNED_CHAR;
    TRY(MPI_Allreduce(&uc, &ucmax, 1, MPI_UNSIGNED_CHAR, tmax, MPI_COMM_WORLD));
    EQ(ucmax, 200 + size - 1, "MPI_Allreduce of MPI_UNSIGNED_CHAR by a user maximum");
    int32_t in32 = 5, io32 = 3;
    want_type = MPI_INT32_T;
    TRY(MPI_Reduce_local(&in32, &io32, 1, MPI_INT32_T, tmax));
    EQ(io32, 5, "MPI_Reduce_local of MPI_INT32_T by a user maximum");
    TRY(MPI_Op_free(&tmax));
    passed("typed");

    EQ(wrong_type, 0, "calls of a user operation with another datatype than the call's");
    TRY(MPI_Op_free(&prod));
    TRY(MPI_Op_free(&sum));
    CHECK(prod == MPI_OP_NULL && sum == MPI_OP_NULL, "MPI_Op_free left a handle");
    TRY(MPI_Type_free(&mat_type));
    TRY(MPI_Type_free(&stats_type));
    TRY(MPI_Finalize());
    return 0;
}
