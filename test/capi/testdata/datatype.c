/* Derived datatypes, MPI_Pack and its kin through libmpi_abi: every
 * constructor (and its _c twin) is checked by packing a buffer of
 * numbered ints and comparing the packed order with the type map, then
 * unpacking back; some types also cross ranks. Error classes are checked
 * with MPI_ERRORS_RETURN. Run with 2 or more ranks. */
#include "check.h"
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stddef.h>

static int rank, size;

/* layout commits dt, packs count of it from a buffer of numbered ints
 * and checks the packed ints are want[0..n); then unpacks them into a
 * buffer of -1s and checks exactly those places got their numbers. */
static void layout(const char *what, MPI_Datatype dt, int count, const int *want, int n) {
    int src[128], dst[128], packed[128], psize, pos = 0, i;
    for (i = 0; i < 128; i++)
        src[i] = i, dst[i] = -1;
    TRY(MPI_Type_commit(&dt));
    TRY(MPI_Pack_size(count, dt, MPI_COMM_WORLD, &psize));
    CHECK(psize == n * (int)sizeof(int), "%s: pack size %d, want %d", what, psize, n * (int)sizeof(int));
    TRY(MPI_Pack(src, count, dt, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == psize, "%s: packed to position %d, want %d", what, pos, psize);
    for (i = 0; i < n; i++)
        CHECK(packed[i] == want[i], "%s: packed int %d is %d, want %d", what, i, packed[i], want[i]);
    pos = 0;
    TRY(MPI_Unpack(packed, psize, &pos, dst, count, dt, MPI_COMM_WORLD));
    CHECK(pos == psize, "%s: unpacked to position %d, want %d", what, pos, psize);
    for (i = 0; i < 128; i++) {
        int in = 0, j;
        for (j = 0; j < n; j++)
            in |= want[j] == i;
        CHECK(dst[i] == (in ? i : -1), "%s: unpacked int %d is %d, want %d", what, i, dst[i], in ? i : -1);
    }
    passed(what);
}

static void constructors(void) {
    MPI_Datatype t;
    MPI_Aint lb, ext;
    int sz;

    {
        int want[] = {0, 1, 5, 6, 10, 11};
        TRY(MPI_Type_create_hvector(3, 2, 5 * sizeof(int), MPI_INT, &t));
        layout("type_create_hvector", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
        CHECK(t == MPI_DATATYPE_NULL, "type free left the handle");
        TRY(MPI_Type_create_hvector_c(3, 2, 5 * sizeof(int), MPI_INT, &t));
        layout("type_create_hvector_c", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
    }
    {
        int bl[] = {1, 2, 3}, d[] = {0, 4, 10}, want[] = {0, 4, 5, 10, 11, 12};
        MPI_Count blc[] = {1, 2, 3}, dc[] = {0, 4, 10};
        TRY(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        layout("type_indexed", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_indexed_c(3, blc, dc, MPI_INT, &t));
        layout("type_indexed_c", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
    }
    {
        int bl[] = {2, 1}, want[] = {8, 9, 2};
        MPI_Aint d[] = {8 * sizeof(int), 2 * sizeof(int)};
        MPI_Count blc[] = {2, 1}, dc[] = {8 * sizeof(int), 2 * sizeof(int)};
        TRY(MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t));
        layout("type_create_hindexed", t, 1, want, 3);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_hindexed_c(2, blc, dc, MPI_INT, &t));
        layout("type_create_hindexed_c", t, 1, want, 3);
        TRY(MPI_Type_free(&t));
    }
    {
        int d[] = {1, 6, 3}, want[] = {1, 2, 6, 7, 3, 4};
        MPI_Count dc[] = {1, 6, 3};
        TRY(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t));
        layout("type_create_indexed_block", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_INT, &t));
        layout("type_create_indexed_block_c", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
    }
    {
        MPI_Aint d[] = {0, 20 * sizeof(int)};
        MPI_Count dc[] = {0, 20 * sizeof(int)};
        int want[] = {0, 1, 2, 20, 21, 22};
        TRY(MPI_Type_create_hindexed_block(2, 3, d, MPI_INT, &t));
        layout("type_create_hindexed_block", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_hindexed_block_c(2, 3, dc, MPI_INT, &t));
        layout("type_create_hindexed_block_c", t, 1, want, 6);
        TRY(MPI_Type_free(&t));
    }
    {
        /* A 4x5 array: rows 1-2, columns 1-3. */
        int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 1};
        MPI_Count sizesc[] = {4, 5}, subc[] = {2, 3}, startsc[] = {1, 1};
        int wantC[] = {6, 7, 8, 11, 12, 13}, wantF[] = {5, 6, 9, 10, 13, 14};
        TRY(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
        TRY(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 20 * sizeof(int), "subarray extent %ld,%ld, want 0,%zu", (long)lb, (long)ext, 20 * sizeof(int));
        layout("type_create_subarray C order", t, 1, wantC, 6);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
        layout("type_create_subarray Fortran order", t, 1, wantF, 6);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_subarray_c(2, sizesc, subc, startsc, MPI_ORDER_C, MPI_INT, &t));
        layout("type_create_subarray_c", t, 1, wantC, 6);
        TRY(MPI_Type_free(&t));
    }
    {
        int want[] = {0, 2, 4};
        TRY(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t));
        TRY(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 2 * sizeof(int), "resized extent %ld,%ld", (long)lb, (long)ext);
        layout("type_create_resized", t, 3, want, 3);
        TRY(MPI_Type_free(&t));
        TRY(MPI_Type_create_resized_c(MPI_INT, 0, 2 * sizeof(int), &t));
        layout("type_create_resized_c", t, 3, want, 3);
        TRY(MPI_Type_free(&t));
    }
    {
        MPI_Datatype v, d;
        int want[] = {0, 3, 6};
        char name[MPI_MAX_OBJECT_NAME];
        int n;
        TRY(MPI_Type_vector(3, 1, 3, MPI_INT, &v));
        TRY(MPI_Type_dup(v, &d));
        TRY(MPI_Type_free(&v));
        layout("type_dup of a vector", d, 1, want, 3);
        TRY(MPI_Type_free(&d));
        TRY(MPI_Type_dup(MPI_DOUBLE, &d));
        TRY(MPI_Type_size(d, &sz));
        CHECK(sz == sizeof(double), "dup of MPI_DOUBLE has size %d", sz);
        TRY(MPI_Type_get_name(d, name, &n));
        TRY(MPI_Type_free(&d));
        passed("type_dup of MPI_DOUBLE");
    }
    {
        MPI_Datatype m;
        TRY(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
        CHECK(m == MPI_DOUBLE, "match size real 8 is not MPI_DOUBLE");
        TRY(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
        TRY(MPI_Type_size(m, &sz));
        CHECK(sz == 4, "match size integer 4 has size %d", sz);
        TRY(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
        CHECK(m == MPI_C_DOUBLE_COMPLEX, "match size complex 16 is not MPI_C_DOUBLE_COMPLEX");
        RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m), MPI_ERR_ARG);
        RC(MPI_Type_match_size(12345, 4, &m), MPI_ERR_ARG);
        passed("type_match_size");
    }
    {
        MPI_Datatype p;
        TRY(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &p));
        CHECK(p == MPI_DOUBLE_INT, "value index of double, int");
        TRY(MPI_Type_get_value_index(MPI_INT, MPI_INT, &p));
        CHECK(p == MPI_2INT, "value index of int, int");
        TRY(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &p));
        CHECK(p == MPI_DATATYPE_NULL, "value index of float, float is not MPI_DATATYPE_NULL");
        RC(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &p), MPI_ERR_TYPE);
        passed("type_get_value_index");
    }
    {
        /* Ints 1 and 3 of every 4, the type's extent cut to 3 ints. */
        MPI_Count clb, cext, csz;
        int bl[] = {1, 1}, d[] = {1, 3};
        MPI_Datatype ix, r;
        TRY(MPI_Type_indexed(2, bl, d, MPI_INT, &ix));
        TRY(MPI_Type_create_resized(ix, -4, 12, &r));
        TRY(MPI_Type_get_extent_c(r, &clb, &cext));
        CHECK(clb == -4 && cext == 12, "get_extent_c %ld %ld", (long)clb, (long)cext);
        TRY(MPI_Type_get_extent_x(r, &clb, &cext));
        CHECK(clb == -4 && cext == 12, "get_extent_x %ld %ld", (long)clb, (long)cext);
        TRY(MPI_Type_get_true_extent_c(r, &clb, &cext));
        CHECK(clb == 4 && cext == 12, "get_true_extent_c %ld %ld", (long)clb, (long)cext);
        TRY(MPI_Type_get_true_extent_x(r, &clb, &cext));
        CHECK(clb == 4 && cext == 12, "get_true_extent_x %ld %ld", (long)clb, (long)cext);
        TRY(MPI_Type_size_x(r, &csz));
        CHECK(csz == 8, "size_x %ld", (long)csz);
        TRY(MPI_Type_free(&r));
        TRY(MPI_Type_free(&ix));
        passed("type_get_extent_c/_x, type_get_true_extent_c/_x, type_size_x");
    }
}

struct rec {
    int a;
    double b;
    char c;
};

/* recType is struct rec, resized to its C size. */
static MPI_Datatype recType(int large) {
    MPI_Datatype s, r;
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Aint lb, ext;
    int sz;
    if (large) {
        MPI_Count bl[] = {1, 1, 1}, d[] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
        TRY(MPI_Type_create_struct_c(3, bl, d, types, &s));
    } else {
        int bl[] = {1, 1, 1};
        MPI_Aint d[] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
        TRY(MPI_Type_create_struct(3, bl, d, types, &s));
    }
    TRY(MPI_Type_size(s, &sz));
    CHECK(sz == 4 + 8 + 1, "struct size %d, want 13", sz);
    TRY(MPI_Type_create_resized(s, 0, sizeof(struct rec), &r));
    TRY(MPI_Type_free(&s));
    TRY(MPI_Type_commit(&r));
    TRY(MPI_Type_get_extent(r, &lb, &ext));
    CHECK(lb == 0 && ext == sizeof(struct rec), "struct extent %ld, want %zu", (long)ext, sizeof(struct rec));
    return r;
}

/* exchange sends 3 recs of each struct type from rank 0 to every other
 * rank, and a column of a matrix as a vector. */
static void exchange(void) {
    int large;
    for (large = 0; large < 2; large++) {
        MPI_Datatype r = recType(large);
        struct rec recs[3];
        int i, peer;
        memset(recs, 0, sizeof recs);
        if (rank == 0) {
            for (i = 0; i < 3; i++)
                recs[i].a = 10 + i, recs[i].b = 0.5 * i, recs[i].c = 'x' + i;
            for (peer = 1; peer < size; peer++)
                TRY(MPI_Send(recs, 3, r, peer, 7, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int n;
            TRY(MPI_Recv(recs, 3, r, 0, 7, MPI_COMM_WORLD, &st));
            TRY(MPI_Get_count(&st, r, &n));
            CHECK(n == 3, "received %d structs, want 3", n);
            for (i = 0; i < 3; i++)
                CHECK(recs[i].a == 10 + i && recs[i].b == 0.5 * i && recs[i].c == 'x' + i,
                      "struct %d arrived as {%d, %g, %c}", i, recs[i].a, recs[i].b, recs[i].c);
        }
        TRY(MPI_Type_free(&r));
    }
    passed("type_create_struct and type_create_struct_c across ranks");
    {
        double m[4][3], col[4];
        MPI_Datatype c;
        int i, j;
        TRY(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &c));
        TRY(MPI_Type_commit(&c));
        for (i = 0; i < 4; i++)
            for (j = 0; j < 3; j++)
                m[i][j] = 10 * i + j;
        if (rank == 0) {
            int peer;
            for (peer = 1; peer < size; peer++)
                TRY(MPI_Send(&m[0][1], 1, c, peer, 8, MPI_COMM_WORLD));
        } else {
            TRY(MPI_Recv(col, 4, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (i = 0; i < 4; i++)
                CHECK(col[i] == 10 * i + 1, "column element %d is %g", i, col[i]);
        }
        TRY(MPI_Type_free(&c));
        passed("a matrix column as a vector across ranks");
    }
}

static void packing(void) {
    int in[3] = {0x01020304, 5, -1}, out[3] = {0};
    unsigned char buf[64];
    MPI_Count cpos = 0, csize;
    MPI_Aint apos = 0, asize;
    int i;

    TRY(MPI_Pack_size_c(3, MPI_INT, MPI_COMM_WORLD, &csize));
    CHECK(csize == 12, "pack size c %ld", (long)csize);
    TRY(MPI_Pack_c(in, 3, MPI_INT, buf, sizeof buf, &cpos, MPI_COMM_WORLD));
    CHECK(cpos == 12, "pack c position %ld", (long)cpos);
    cpos = 0;
    TRY(MPI_Unpack_c(buf, 12, &cpos, out, 3, MPI_INT, MPI_COMM_WORLD));
    CHECK(cpos == 12 && memcmp(in, out, sizeof in) == 0, "unpack c");
    passed("pack_c, unpack_c, pack_size_c");

    TRY(MPI_Pack_external_size("external32", 3, MPI_INT, &asize));
    CHECK(asize == 12, "pack external size %ld", (long)asize);
    TRY(MPI_Pack_external("external32", in, 3, MPI_INT, buf, sizeof buf, &apos));
    CHECK(apos == 12, "pack external position %ld", (long)apos);
    CHECK(buf[0] == 1 && buf[1] == 2 && buf[2] == 3 && buf[3] == 4, "external32 is not big-endian: %02x %02x %02x %02x",
          buf[0], buf[1], buf[2], buf[3]);
    memset(out, 0, sizeof out);
    apos = 0;
    TRY(MPI_Unpack_external("external32", buf, 12, &apos, out, 3, MPI_INT));
    CHECK(apos == 12 && memcmp(in, out, sizeof in) == 0, "unpack external");
    passed("pack_external, unpack_external, pack_external_size");

    TRY(MPI_Pack_external_size_c("external32", 3, MPI_INT, &csize));
    CHECK(csize == 12, "pack external size c %ld", (long)csize);
    cpos = 0;
    TRY(MPI_Pack_external_c("external32", in, 3, MPI_INT, buf, sizeof buf, &cpos));
    memset(out, 0, sizeof out);
    cpos = 0;
    TRY(MPI_Unpack_external_c("external32", buf, 12, &cpos, out, 3, MPI_INT));
    CHECK(cpos == 12, "unpack external c position %ld", (long)cpos);
    for (i = 0; i < 3; i++)
        CHECK(out[i] == in[i], "unpack external c int %d", i);
    passed("pack_external_c, unpack_external_c, pack_external_size_c");

    /* Two packs into one buffer, one unpack of both. */
    {
        double d = 2.5, d2;
        int pos = 0, k = 42, k2;
        TRY(MPI_Pack(&k, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        TRY(MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        CHECK(pos == 12, "two packs end at %d", pos);
        if (rank == 0) {
            int peer;
            for (peer = 1; peer < size; peer++)
                TRY(MPI_Send(buf, pos, MPI_PACKED, peer, 9, MPI_COMM_WORLD));
        } else {
            memset(buf, 0, sizeof buf);
            TRY(MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        pos = 0;
        TRY(MPI_Unpack(buf, 12, &pos, &k2, 1, MPI_INT, MPI_COMM_WORLD));
        TRY(MPI_Unpack(buf, 12, &pos, &d2, 1, MPI_DOUBLE, MPI_COMM_WORLD));
        CHECK(k2 == 42 && d2 == 2.5, "packed message arrived as %d, %g", k2, d2);
        passed("MPI_PACKED message across ranks");
    }
}

/* external32 fixes long and unsigned long at 4 bytes and wchar_t at 2,
 * whatever their size here: values that fit go big-endian and come back
 * sign- or zero-extended, and one that does not fit is an error. */
static void external_sizes(void) {
    long in[3] = {-2, 0x01020304L, 7}, out[3], big = 1L << 40;
    unsigned long uin[2] = {0xfffffffeUL, 5}, uout[2];
    wchar_t win[2] = {L'A', 0x20ac}, wout[2], wbig = 0x1f600;
    struct {
        long v;
        int i;
    } lin = {-9, 3}, lout;
    unsigned char buf[64];
    MPI_Aint size, pos = 0;

    TRY(MPI_Pack_external_size("external32", 3, MPI_LONG, &size));
    EQ(size, 12, "external32 size of 3 MPI_LONG");
    TRY(MPI_Pack_external("external32", in, 3, MPI_LONG, buf, sizeof buf, &pos));
    EQ(pos, 12, "pack external of 3 MPI_LONG: position");
    CHECK(buf[0] == 0xff && buf[3] == 0xfe && buf[4] == 1 && buf[7] == 4, "MPI_LONG in external32: %02x %02x %02x %02x",
          buf[0], buf[3], buf[4], buf[7]);
    pos = 0;
    TRY(MPI_Unpack_external("external32", buf, 12, &pos, out, 3, MPI_LONG));
    CHECK(memcmp(in, out, sizeof in) == 0, "MPI_LONG back from external32: %ld %ld %ld", out[0], out[1], out[2]);

    TRY(MPI_Pack_external_size("external32", 2, MPI_UNSIGNED_LONG, &size));
    EQ(size, 8, "external32 size of 2 MPI_UNSIGNED_LONG");
    pos = 0;
    TRY(MPI_Pack_external("external32", uin, 2, MPI_UNSIGNED_LONG, buf, sizeof buf, &pos));
    CHECK(buf[0] == 0xff && buf[3] == 0xfe, "MPI_UNSIGNED_LONG in external32: %02x %02x", buf[0], buf[3]);
    pos = 0;
    TRY(MPI_Unpack_external("external32", buf, 8, &pos, uout, 2, MPI_UNSIGNED_LONG));
    CHECK(uout[0] == uin[0] && uout[1] == uin[1], "MPI_UNSIGNED_LONG back from external32: %lx", uout[0]);

    TRY(MPI_Pack_external_size("external32", 2, MPI_WCHAR, &size));
    EQ(size, 4, "external32 size of 2 MPI_WCHAR");
    pos = 0;
    TRY(MPI_Pack_external("external32", win, 2, MPI_WCHAR, buf, sizeof buf, &pos));
    CHECK(buf[0] == 0 && buf[1] == 'A' && buf[2] == 0x20 && buf[3] == 0xac, "MPI_WCHAR in external32: %02x %02x %02x %02x",
          buf[0], buf[1], buf[2], buf[3]);
    pos = 0;
    TRY(MPI_Unpack_external("external32", buf, 4, &pos, wout, 2, MPI_WCHAR));
    CHECK(wout[0] == win[0] && wout[1] == win[1], "MPI_WCHAR back from external32");

    TRY(MPI_Pack_external_size("external32", 1, MPI_LONG_INT, &size));
    EQ(size, 8, "external32 size of MPI_LONG_INT");
    pos = 0;
    TRY(MPI_Pack_external("external32", &lin, 1, MPI_LONG_INT, buf, sizeof buf, &pos));
    pos = 0;
    TRY(MPI_Unpack_external("external32", buf, 8, &pos, &lout, 1, MPI_LONG_INT));
    CHECK(lout.v == -9 && lout.i == 3, "MPI_LONG_INT back from external32: %ld %d", lout.v, lout.i);

    pos = 0;
    RC(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, sizeof buf, &pos), MPI_ERR_ARG);
    EQ(pos, 0, "a failed external pack's position");
    RC(MPI_Pack_external("external32", &wbig, 1, MPI_WCHAR, buf, sizeof buf, &pos), MPI_ERR_ARG);
    passed("external32 sizes of long, unsigned long, wchar_t and long-int");
}

static void errors(void) {
    MPI_Datatype t, bad = (MPI_Datatype)(MPI_Aint)0x7ffff0;
    int sz, pos = 0, in[4] = {0};
    char buf[8];
    MPI_Aint apos = 0;
    int bl[] = {1}, d[] = {0}, s[] = {4}, ss[] = {2}, st[] = {0};

    RC(MPI_Type_size(bad, &sz), MPI_ERR_TYPE);
    RC(MPI_Type_indexed(1, bl, d, bad, &t), MPI_ERR_TYPE);
    RC(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    RC(MPI_Type_indexed(-2, bl, d, MPI_INT, &t), MPI_ERR_COUNT);
    RC(MPI_Type_create_subarray(1, s, ss, st, 99, MPI_INT, &t), MPI_ERR_ARG);
    ss[0] = 5;
    RC(MPI_Type_create_subarray(1, s, ss, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    {
        MPI_Datatype types[] = {MPI_INT, bad};
        int bl2[] = {1, 1};
        MPI_Aint d2[] = {0, 8};
        RC(MPI_Type_create_struct(2, bl2, d2, types, &t), MPI_ERR_TYPE);
    }
    RC(MPI_Pack(in, 4, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 0, "a failed pack moved the position to %d", pos);
    RC(MPI_Pack(in, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    RC(MPI_Pack_external("native", in, 1, MPI_INT, buf, sizeof buf, &apos), MPI_ERR_ARG);
    RC(MPI_Pack_size(1, bad, MPI_COMM_WORLD, &sz), MPI_ERR_TYPE);
    TRY(MPI_Type_contiguous(2, MPI_INT, &t));
    {
        MPI_Datatype kept = t;
        TRY(MPI_Type_free(&t));
        RC(MPI_Type_size(kept, &sz), MPI_ERR_TYPE);
        RC(MPI_Type_dup(kept, &t), MPI_ERR_TYPE);
    }
    TRY(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    pos = 0;
    RC(MPI_Pack(in, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
    TRY(MPI_Type_free(&t));
    passed("error classes of bad datatypes and packs");
}

/* envelope checks MPI_Type_get_envelope of t and its _c twin. */
static void envelope(MPI_Datatype t, int ni, int na, int nd, int combiner, const char *what) {
    int i = -1, a = -1, d = -1, c = -1;
    MPI_Count ci = -1, ca = -1, cl = -1, cd = -1;
    TRY(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    CHECK(i == ni && a == na && d == nd && c == combiner, "%s: envelope %d %d %d combiner %d, want %d %d %d %d", what, i, a,
          d, c, ni, na, nd, combiner);
    TRY(MPI_Type_get_envelope_c(t, &ci, &ca, &cl, &cd, &c));
    CHECK(ci == ni && ca == na && cl == 0 && cd == nd && c == combiner, "%s: envelope_c %lld %lld %lld %lld combiner %d",
          what, (long long)ci, (long long)ca, (long long)cl, (long long)cd, c);
}

/* decoding: what MPI_Type_get_envelope and MPI_Type_get_contents say of
 * each constructor, as a tool walks a type; an old type freed by the
 * program lives on in what was made from it. */
static void decoding(void) {
    int ints[16], blocks[3] = {1, 2, 1}, displs[3] = {0, 3, 7}, sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Aint addrs[4], adispls[2] = {0, 16};
    MPI_Datatype types[3], vec, hvec, idx, hidx, blk, hblk, st, sub, rsz, dup, contig, inner;
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE};

    envelope(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED, "MPI_INT");
    RC(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types), MPI_ERR_TYPE);

    TRY(MPI_Type_contiguous(3, MPI_SHORT, &inner));
    TRY(MPI_Type_vector(4, 2, 5, inner, &vec));
    TRY(MPI_Type_free(&inner)); /* vec holds it */
    envelope(vec, 3, 0, 1, MPI_COMBINER_VECTOR, "vector");
    TRY(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 4 && ints[1] == 2 && ints[2] == 5, "vector's contents %d %d %d", ints[0], ints[1], ints[2]);
    envelope(types[0], 1, 0, 1, MPI_COMBINER_CONTIGUOUS, "the vector's freed old type");
    TRY(MPI_Type_get_contents(types[0], 1, 0, 1, ints, addrs, &contig));
    CHECK(ints[0] == 3 && contig == MPI_SHORT, "contiguous's contents %d %#x", ints[0], MPI_Type_toint(contig));
    int sz = 0;
    TRY(MPI_Type_size(types[0], &sz));
    EQ(sz, 6, "the size of the type MPI_Type_get_contents gave back");
    TRY(MPI_Type_free(&types[0]));
    RC(MPI_Type_get_contents(vec, 2, 0, 1, ints, addrs, types), MPI_ERR_ARG); /* too little room */

    TRY(MPI_Type_create_hvector(2, 3, 40, MPI_FLOAT, &hvec));
    envelope(hvec, 2, 1, 1, MPI_COMBINER_HVECTOR, "hvector");
    TRY(MPI_Type_get_contents(hvec, 2, 1, 1, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 3 && addrs[0] == 40 && types[0] == MPI_FLOAT, "hvector's contents");
    MPI_Count counts[1];
    ints[0] = -1;
    TRY(MPI_Type_get_contents_c(hvec, 2, 1, 0, 1, ints, addrs, counts, types));
    CHECK(ints[0] == 2 && ints[1] == 3 && addrs[0] == 40 && types[0] == MPI_FLOAT, "hvector's contents_c");

    TRY(MPI_Type_indexed(3, blocks, displs, MPI_INT, &idx));
    envelope(idx, 7, 0, 1, MPI_COMBINER_INDEXED, "indexed");
    TRY(MPI_Type_get_contents(idx, 7, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[2] == 2 && ints[6] == 7 && types[0] == MPI_INT, "indexed's contents");

    MPI_Aint hdispls[3] = {0, 12, 28};
    TRY(MPI_Type_create_hindexed(3, blocks, hdispls, MPI_INT, &hidx));
    envelope(hidx, 4, 3, 1, MPI_COMBINER_HINDEXED, "hindexed");
    TRY(MPI_Type_get_contents(hidx, 4, 3, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[3] == 1 && addrs[1] == 12 && addrs[2] == 28, "hindexed's contents");

    TRY(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &blk));
    envelope(blk, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK, "indexed_block");
    TRY(MPI_Type_get_contents(blk, 5, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[4] == 7, "indexed_block's contents");

    TRY(MPI_Type_create_hindexed_block(3, 2, hdispls, MPI_INT, &hblk));
    envelope(hblk, 2, 3, 1, MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block");

    TRY(MPI_Type_create_struct(2, blocks, adispls, stypes, &st));
    envelope(st, 3, 2, 2, MPI_COMBINER_STRUCT, "struct");
    TRY(MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && addrs[1] == 16 && types[0] == MPI_INT && types[1] == MPI_DOUBLE,
          "struct's contents");

    TRY(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    envelope(sub, 8, 0, 1, MPI_COMBINER_SUBARRAY, "subarray");
    TRY(MPI_Type_get_contents(sub, 8, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[4] == 3 && ints[6] == 2 && ints[7] == MPI_ORDER_FORTRAN, "subarray's contents");

    TRY(MPI_Type_create_resized(MPI_INT, -4, 16, &rsz));
    envelope(rsz, 0, 2, 1, MPI_COMBINER_RESIZED, "resized");
    TRY(MPI_Type_get_contents(rsz, 0, 2, 1, ints, addrs, types));
    CHECK(addrs[0] == -4 && addrs[1] == 16 && types[0] == MPI_INT, "resized's contents");

    TRY(MPI_Type_dup(vec, &dup));
    envelope(dup, 0, 0, 1, MPI_COMBINER_DUP, "dup");
    TRY(MPI_Type_get_contents(dup, 0, 0, 1, ints, addrs, types));
    CHECK(types[0] == vec, "dup's old type %#x, want %#x", MPI_Type_toint(types[0]), MPI_Type_toint(vec));
    TRY(MPI_Type_free(&types[0])); /* the reference the contents gave */

    MPI_Datatype all[] = {vec, hvec, idx, hidx, blk, hblk, st, sub, rsz, dup};
    for (int k = 0; k < (int)(sizeof all / sizeof all[0]); k++)
        TRY(MPI_Type_free(&all[k]));
    passed("type_get_envelope and type_get_contents of every constructor");
}

/* envelope_c checks MPI_Type_get_envelope_c of a type a _c constructor
 * made: its MPI_Count arguments are large counts. */
static void envelope_c(MPI_Datatype t, MPI_Count ni, MPI_Count nc, MPI_Count nd, int combiner, const char *what) {
    MPI_Count i = -1, a = -1, c = -1, d = -1;
    int comb = -1;
    TRY(MPI_Type_get_envelope_c(t, &i, &a, &c, &d, &comb));
    CHECK(i == ni && a == 0 && c == nc && d == nd && comb == combiner,
          "%s: envelope_c %lld %lld %lld %lld combiner %d, want %lld 0 %lld %lld %d", what, (long long)i, (long long)a,
          (long long)c, (long long)d, comb, (long long)ni, (long long)nc, (long long)nd, combiner);
}

/* large_decoding: the _c decoders give a _c constructor's counts,
 * strides, displacements and bounds as large counts, in the standard's
 * order; the int decoders still give them as integers where they fit. */
static void large_decoding(void) {
    int ints[10];
    MPI_Aint addrs[2];
    MPI_Count counts[8], bl[2] = {1, 2}, ds[2] = {0, 16}, sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Datatype types[2], vec, hidx, st, sub, rsz;
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE};

    TRY(MPI_Type_vector_c(4, 2, 5, MPI_INT, &vec));
    envelope_c(vec, 0, 3, 1, MPI_COMBINER_VECTOR, "vector_c");
    TRY(MPI_Type_get_contents_c(vec, 0, 0, 3, 1, ints, addrs, counts, types));
    CHECK(counts[0] == 4 && counts[1] == 2 && counts[2] == 5 && types[0] == MPI_INT, "vector_c's contents");
    int ei = -1, ea = -1, ed = -1, ec = -1;
    TRY(MPI_Type_get_envelope(vec, &ei, &ea, &ed, &ec));
    CHECK(ei == 3 && ea == 0 && ed == 1 && ec == MPI_COMBINER_VECTOR, "vector_c through MPI_Type_get_envelope: %d %d %d %d", ei,
          ea, ed, ec);
    RC(MPI_Type_get_contents_c(vec, 0, 0, 2, 1, ints, addrs, counts, types), MPI_ERR_ARG); /* too little room */

    TRY(MPI_Type_create_hindexed_c(2, bl, ds, MPI_INT, &hidx));
    envelope_c(hidx, 0, 5, 1, MPI_COMBINER_HINDEXED, "hindexed_c");
    TRY(MPI_Type_get_contents_c(hidx, 0, 0, 5, 1, ints, addrs, counts, types));
    CHECK(counts[0] == 2 && counts[1] == 1 && counts[2] == 2 && counts[3] == 0 && counts[4] == 16, "hindexed_c's contents");

    TRY(MPI_Type_create_struct_c(2, bl, ds, stypes, &st));
    envelope_c(st, 0, 5, 2, MPI_COMBINER_STRUCT, "struct_c");
    TRY(MPI_Type_get_contents_c(st, 0, 0, 5, 2, ints, addrs, counts, types));
    CHECK(counts[0] == 2 && counts[4] == 16 && types[0] == MPI_INT && types[1] == MPI_DOUBLE, "struct_c's contents");

    TRY(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    envelope_c(sub, 2, 6, 1, MPI_COMBINER_SUBARRAY, "subarray_c");
    TRY(MPI_Type_get_contents_c(sub, 2, 0, 6, 1, ints, addrs, counts, types));
    CHECK(ints[0] == 2 && ints[1] == MPI_ORDER_FORTRAN && counts[0] == 4 && counts[3] == 3 && counts[5] == 2,
          "subarray_c's contents");

    TRY(MPI_Type_create_resized_c(MPI_INT, -4, 16, &rsz));
    envelope_c(rsz, 0, 2, 1, MPI_COMBINER_RESIZED, "resized_c");
    TRY(MPI_Type_get_contents_c(rsz, 0, 0, 2, 1, ints, addrs, counts, types));
    CHECK(counts[0] == -4 && counts[1] == 16 && types[0] == MPI_INT, "resized_c's contents");

    int block_cyclic[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    int grid[2] = {2, 2};
    MPI_Count gsizes[2] = {5, 7};
    MPI_Datatype da;
    TRY(MPI_Type_create_darray_c(4, 3, 2, gsizes, block_cyclic, dflt, grid, MPI_ORDER_C, MPI_INT, &da));
    envelope_c(da, 10, 2, 1, MPI_COMBINER_DARRAY, "darray_c");
    TRY(MPI_Type_get_contents_c(da, 10, 0, 2, 1, ints, addrs, counts, types));
    CHECK(ints[0] == 4 && ints[1] == 3 && ints[2] == 2 && ints[3] == MPI_DISTRIBUTE_BLOCK && ints[5] == MPI_DISTRIBUTE_DFLT_DARG &&
              ints[8] == 2 && ints[9] == MPI_ORDER_C && counts[0] == 5 && counts[1] == 7,
          "darray_c's contents");

    MPI_Datatype all[] = {vec, hidx, st, sub, rsz, da};
    for (int k = 0; k < (int)(sizeof all / sizeof all[0]); k++)
        TRY(MPI_Type_free(&all[k]));
    passed("type_get_envelope_c and type_get_contents_c of the _c constructors");
}

/* owner_block and owner_cyclic: which coordinate of a dimension of g
 * elements over p processes holds element x, by hand. */
static int owner(int dist, int darg, int g, int p, int x) {
    if (dist == MPI_DISTRIBUTE_NONE)
        return 0;
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (x / b) % p;
}

/* darray_case packs a 5x7 global array of ints, valued by index, with the
 * darray type of every rank of a 2x2 grid (psizes), and checks it against
 * the elements that rank owns, found by hand, in the array's order. */
static void darray_case(int order, const int *dist, const int *darg, const int *psizes, const char *what) {
    enum { G0 = 5, G1 = 7 };
    int gsizes[2] = {G0, G1}, global[G0 * G1], packed[G0 * G1], want[G0 * G1];
    for (int k = 0; k < G0 * G1; k++)
        global[k] = k;
    int nproc = psizes[0] * psizes[1];
    for (int r = 0; r < nproc; r++) {
        int c0 = r / psizes[1], c1 = r % psizes[1], n = 0;
        /* The array's order: C walks dimension 1 fastest, Fortran dimension 0. */
        for (int a = 0; a < (order == MPI_ORDER_C ? G0 : G1); a++)
            for (int b = 0; b < (order == MPI_ORDER_C ? G1 : G0); b++) {
                int i = order == MPI_ORDER_C ? a : b, j = order == MPI_ORDER_C ? b : a;
                if (owner(dist[0], darg[0], G0, psizes[0], i) == c0 && owner(dist[1], darg[1], G1, psizes[1], j) == c1)
                    want[n++] = order == MPI_ORDER_C ? i * G1 + j : j * G0 + i;
            }
        MPI_Datatype t;
        TRY(MPI_Type_create_darray(nproc, r, 2, gsizes, dist, darg, psizes, order, MPI_INT, &t));
        TRY(MPI_Type_commit(&t));
        int sz = -1, pos = 0;
        MPI_Aint lb = -1, ext = -1;
        TRY(MPI_Type_size(t, &sz));
        TRY(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(sz == n * (int)sizeof(int) && lb == 0 && ext == (MPI_Aint)sizeof global, "%s rank %d: size %d lb %ld extent %ld, want %d 0 %zu", what,
              r, sz, (long)lb, (long)ext, n * (int)sizeof(int), sizeof global);
        TRY(MPI_Pack(global, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF));
        for (int k = 0; k < n; k++)
            CHECK(packed[k] == want[k], "%s rank %d: element %d is %d, want %d", what, r, k, packed[k], want[k]);
        int ni, na, nd, comb;
        TRY(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * 2 + 4 && nd == 1, "%s: envelope %d %d %d %d", what, ni, na, nd, comb);
        TRY(MPI_Type_free(&t));
    }
}

/* darrays: block and cyclic distributions in both orders, and a
 * dimension not distributed; the _c form; bad arguments. */
static void darrays(void) {
    int block_cyclic[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    int grid[2] = {2, 2};
    darray_case(MPI_ORDER_C, block_cyclic, dflt, grid, "block x cyclic(2), C order");
    darray_case(MPI_ORDER_FORTRAN, block_cyclic, dflt, grid, "block x cyclic(2), Fortran order");
    int none_block[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, darg3[2] = {MPI_DISTRIBUTE_DFLT_DARG, 3}, grid13[2] = {1, 3};
    darray_case(MPI_ORDER_C, none_block, darg3, grid13, "none x block(3), C order");
    MPI_Count gsizes_c[2] = {5, 7};
    MPI_Datatype t;
    int sz = -1;
    TRY(MPI_Type_create_darray_c(4, 3, 2, gsizes_c, block_cyclic, dflt, grid, MPI_ORDER_C, MPI_INT, &t));
    TRY(MPI_Type_size(t, &sz));
    EQ(sz, 2 * 3 * (int)sizeof(int), "MPI_Type_create_darray_c: rank 3 holds rows 3-4 and columns 2, 3 and 6");
    TRY(MPI_Type_free(&t));
    int gsizes[2] = {5, 7}, bad[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    RC(MPI_Type_create_darray(4, 0, 2, gsizes, bad, dflt, grid, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    RC(MPI_Type_create_darray(3, 0, 2, gsizes, block_cyclic, dflt, grid, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    /* A negative distribution argument, and a distribution no constant names. */
    int negative[2] = {-1, 2}, unknown[2] = {MPI_DISTRIBUTE_BLOCK, 99};
    RC(MPI_Type_create_darray(4, 0, 2, gsizes, block_cyclic, negative, grid, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    RC(MPI_Type_create_darray(4, 0, 2, gsizes, unknown, dflt, grid, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    passed("type_create_darray and type_create_darray_c");
}

/* The pair types of MINLOC and MAXLOC: sized as MPI says (the padding of
   C's struct left out), reduced across the ranks, and two basic elements
   each, as MPICH's get-elements-pairtype test expects. */
static void pairs(void) {
    struct { MPI_Datatype t; int size; MPI_Aint extent; const char *name; } types[] = {
        {MPI_FLOAT_INT, 8, 8, "MPI_FLOAT_INT"},    {MPI_DOUBLE_INT, 12, 16, "MPI_DOUBLE_INT"},
        {MPI_LONG_INT, 12, 16, "MPI_LONG_INT"},    {MPI_2INT, 8, 8, "MPI_2INT"},
        {MPI_SHORT_INT, 6, 8, "MPI_SHORT_INT"},
    };
    for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++) {
        int sz;
        MPI_Aint lb, ext, tlb, text;
        TRY(MPI_Type_size(types[i].t, &sz));
        TRY(MPI_Type_get_extent(types[i].t, &lb, &ext));
        TRY(MPI_Type_get_true_extent(types[i].t, &tlb, &text));
        CHECK(sz == types[i].size && lb == 0 && ext == types[i].extent && tlb == 0 && text == types[i].size + (types[i].size == 6 ? 2 : 0),
              "%s: size %d, extent %ld,%ld, true extent %ld,%ld", types[i].name, sz, (long)lb, (long)ext, (long)tlb, (long)text);
    }
    struct { double v; int i; } d[3], dmin[3];
    struct { short v; int i; } s[2], smax[2];
    for (int k = 0; k < 3; k++) {
        d[k].v = k == 1 ? 5.0 : (double)((rank + k) % size); /* element 1: a tie, the lowest index wins */
        d[k].i = 10 * rank + k;
    }
    for (int k = 0; k < 2; k++) {
        s[k].v = (short)(k == 0 ? -rank : rank);
        s[k].i = rank;
    }
    TRY(MPI_Allreduce(d, dmin, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(s, smax, 2, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) {
        int owner = k == 1 ? 0 : (size - k) % size; /* the rank whose (rank+k)%size is 0 */
        double want = k == 1 ? 5.0 : 0.0;
        CHECK(dmin[k].v == want && dmin[k].i == 10 * owner + k, "MINLOC on MPI_DOUBLE_INT, element %d: %g at %d, want %g at %d",
              k, dmin[k].v, dmin[k].i, want, 10 * owner + k);
    }
    CHECK(smax[0].v == 0 && smax[0].i == 0 && smax[1].v == size - 1 && smax[1].i == size - 1,
          "MAXLOC on MPI_SHORT_INT: (%d at %d) (%d at %d)", smax[0].v, smax[0].i, smax[1].v, smax[1].i);
    /* A double, an int and a double received as two MPI_DOUBLE_INT: 3 basic
       elements, no whole count. */
    if (rank < 2) {
        struct { double a; int b; double c; } out = {1.5, 7, 2.5};
        MPI_Datatype t, types3[3] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
        int blocks[3] = {1, 1, 1};
        MPI_Aint disps[3] = {0, sizeof(double), 2 * sizeof(double)};
        TRY(MPI_Type_create_struct(3, blocks, disps, types3, &t));
        TRY(MPI_Type_commit(&t));
        if (rank == 0) {
            TRY(MPI_Send(&out, 1, t, 1, 5, MPI_COMM_WORLD));
        } else {
            struct { double v; int i; } in[2] = {{0, 0}, {0, 0}};
            MPI_Status st;
            int count, elems;
            TRY(MPI_Recv(in, 2, MPI_DOUBLE_INT, 0, 5, MPI_COMM_WORLD, &st));
            TRY(MPI_Get_count(&st, MPI_DOUBLE_INT, &count));
            TRY(MPI_Get_elements(&st, MPI_DOUBLE_INT, &elems));
            CHECK(count == MPI_UNDEFINED && elems == 3, "a double, an int and a double as MPI_DOUBLE_INT: count %d, %d elements; want MPI_UNDEFINED and 3",
                  count, elems);
            CHECK(in[0].v == 1.5 && in[0].i == 7 && in[1].v == 2.5, "received (%g,%d) (%g)", in[0].v, in[0].i, in[1].v);
        }
        TRY(MPI_Type_free(&t));
    }
    passed("pair types");
}

/* Types whose data lies before the buffer's pointer (a negative stride):
   sent, received, packed, broadcast and reduced in place. */
static void negative_offsets(void) {
    int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0}, packed[4], pos = 0;
    MPI_Datatype rev;
    TRY(MPI_Type_vector(4, 1, -1, MPI_INT, &rev)); /* a[3], a[2], a[1], a[0] from &a[3] */
    TRY(MPI_Type_commit(&rev));
    TRY(MPI_Sendrecv(&a[3], 1, rev, rank, 3, b, 4, MPI_INT, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(b[0] == 4 && b[1] == 3 && b[2] == 2 && b[3] == 1, "sent reversed: %d %d %d %d", b[0], b[1], b[2], b[3]);
    TRY(MPI_Sendrecv(a, 4, MPI_INT, rank, 4, &b[3], 1, rev, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(b[0] == 4 && b[3] == 1, "received reversed: %d %d %d %d", b[0], b[1], b[2], b[3]);
    TRY(MPI_Pack(&a[3], 1, rev, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 16 && packed[0] == 4 && packed[3] == 1, "packed reversed: %d .. %d at %d", packed[0], packed[3], pos);
    MPI_Datatype two;
    TRY(MPI_Type_vector(2, 1, -1, MPI_INT, &two)); /* v[1], v[0] from &v[1] */
    TRY(MPI_Type_commit(&two));
    int v[2] = {rank, 10 * rank};
    if (rank == 0)
        v[0] = 7, v[1] = 8;
    TRY(MPI_Bcast(&v[1], 1, two, 0, MPI_COMM_WORLD));
    CHECK(v[0] == 7 && v[1] == 8, "broadcast reversed: %d %d", v[0], v[1]);
    int w[2] = {rank + 1, 2 * (rank + 1)};
    TRY(MPI_Allreduce(MPI_IN_PLACE, &w[1], 1, two, MPI_SUM, MPI_COMM_WORLD));
    CHECK(w[0] == size * (size + 1) / 2 && w[1] == size * (size + 1), "allreduced in place reversed: %d %d", w[0], w[1]);
    TRY(MPI_Type_free(&two));
    TRY(MPI_Type_free(&rev));
    /* Lower bound 0 and extent its size, yet its data a word in: the
       buffer reaches one word further than count times the extent. */
    int one = 1, out[4] = {-1, 11, 22, 33}, in[4] = {0, 0, 0, 0};
    MPI_Aint four = 4;
    MPI_Datatype h, late;
    TRY(MPI_Type_create_hindexed(1, &one, &four, MPI_INT, &h));
    TRY(MPI_Type_create_resized(h, 0, 4, &late));
    TRY(MPI_Type_commit(&late));
    TRY(MPI_Sendrecv(out, 3, late, rank, 5, in, 3, late, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == 0 && in[1] == 11 && in[2] == 22 && in[3] == 33, "a type whose data starts a word in: %d %d %d %d", in[0], in[1],
          in[2], in[3]);
    TRY(MPI_Type_free(&late));
    TRY(MPI_Type_free(&h));
    passed("negative offsets");
}

/* MPI_BOTTOM with a struct of addresses (MPI_Get_address) of separate
   variables: sent around the ring, packed and unpacked, broadcast and
   reduced in place; a predefined type from MPI_BOTTOM is too short. */
static void absolute_addresses(void) {
    int n = rank, got_n = -1;
    double x[3] = {rank + 0.5, rank + 1.5, rank + 2.5}, got_x[3] = {0, 0, 0};
    int lens[2] = {1, 3};
    MPI_Aint at[2], got_at[2];
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, mine, theirs;
    TRY(MPI_Get_address(&n, &at[0]));
    TRY(MPI_Get_address(x, &at[1]));
    TRY(MPI_Get_address(&got_n, &got_at[0]));
    TRY(MPI_Get_address(got_x, &got_at[1]));
    TRY(MPI_Type_create_struct(2, lens, at, types, &mine));
    TRY(MPI_Type_create_struct(2, lens, got_at, types, &theirs));
    TRY(MPI_Type_commit(&mine));
    TRY(MPI_Type_commit(&theirs));
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    TRY(MPI_Sendrecv(MPI_BOTTOM, 1, mine, to, 8, MPI_BOTTOM, 1, theirs, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got_n == from && got_x[0] == from + 0.5 && got_x[2] == from + 2.5, "from MPI_BOTTOM: %d %g %g", got_n, got_x[0], got_x[2]);

    char packed[64];
    int pos = 0, psize;
    TRY(MPI_Pack_size(1, mine, MPI_COMM_WORLD, &psize));
    TRY(MPI_Pack(MPI_BOTTOM, 1, mine, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 28 && pos <= psize, "packed %d bytes from MPI_BOTTOM (pack size %d)", pos, psize);
    got_n = -1, got_x[1] = 0;
    pos = 0;
    TRY(MPI_Unpack(packed, sizeof packed, &pos, MPI_BOTTOM, 1, theirs, MPI_COMM_WORLD));
    CHECK(got_n == rank && got_x[1] == rank + 1.5, "unpacked to MPI_BOTTOM: %d %g", got_n, got_x[1]);

    if (rank == 0)
        got_n = 42, got_x[2] = 4.25;
    TRY(MPI_Bcast(MPI_BOTTOM, 1, theirs, 0, MPI_COMM_WORLD));
    CHECK(got_n == 42 && got_x[2] == 4.25, "broadcast to MPI_BOTTOM: %d %g", got_n, got_x[2]);
    MPI_Datatype three;
    MPI_Aint x_at;
    TRY(MPI_Get_address(x, &x_at));
    TRY(MPI_Type_create_hindexed(1, &lens[1], &x_at, MPI_DOUBLE, &three));
    TRY(MPI_Type_commit(&three));
    TRY(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, three, MPI_SUM, MPI_COMM_WORLD));
    CHECK(x[1] == size * (size - 1) / 2.0 + 1.5 * size, "allreduced in place at MPI_BOTTOM: %g", x[1]);

    RC(MPI_Send(MPI_BOTTOM, 1, MPI_INT, to, 9, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    TRY(MPI_Type_free(&three));
    TRY(MPI_Type_free(&theirs));
    TRY(MPI_Type_free(&mine));
    passed("absolute addresses from MPI_BOTTOM");
}

/* same10 compares the 10 bytes of two long doubles that hold a value. */
static int same10(long double a, long double b) { return memcmp(&a, &b, 10) == 0; }

/* long double: MPI_Reduce_local against the C compiler's own arithmetic,
   bit for bit, over ordinary, huge, tiny, denormal, signed zero, infinite
   and NaN values; a reduction across ranks; MINLOC on the pair; the
   complex sum and product; external32's binary128. */
static void long_double(void) {
    long double v[] = {1.0L / 3, 2.0L / 3, 0.1L, -0.2L, 1e4000L, 1e4000L, 1e-4940L, -3e-4945L, 0.0L, -0.0L,
                       7.5L, -7.5L, 1.0L, LDBL_EPSILON / 4, LDBL_MAX, LDBL_MAX, LDBL_MIN, -LDBL_MIN / 3,
                       INFINITY, -INFINITY, INFINITY, 2.0L, NAN, 1.0L};
    enum { N = sizeof v / sizeof v[0] / 2 };
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    const char *names[] = {"sum", "prod", "min", "max"};
    for (int o = 0; o < 4; o++) {
        long double in[N], io[N], want[N];
        for (int i = 0; i < N; i++) {
            long double a = v[2 * i], b = v[2 * i + 1];
            in[i] = a, io[i] = b;
            want[i] = o == 0 ? a + b : o == 1 ? a * b : o == 2 ? (isnan(a) || isnan(b) ? NAN : a < b ? a : b)
                                                               : (isnan(a) || isnan(b) ? NAN : a > b ? a : b);
        }
        TRY(MPI_Reduce_local(in, io, N, MPI_LONG_DOUBLE, ops[o]));
        for (int i = 0; i < N; i++)
            CHECK(same10(io[i], want[i]) || (isnan(io[i]) && isnan(want[i])), "%s of %Lg and %Lg: %La, want %La", names[o],
                  v[2 * i], v[2 * i + 1], io[i], want[i]);
    }
    long double mine = rank + 0.25L, sum = 0;
    TRY(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2.0L + size * 0.25L, "allreduce of long doubles: %Lg", sum);
    struct {
        long double v;
        int i;
    } p = {rank % 2 ? -1.0L / 3 : 5.0L, rank}, best;
    TRY(MPI_Allreduce(&p, &best, 1, MPI_LONG_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(best.v == -1.0L / 3 && best.i == 1, "minloc: %Lg at %d", best.v, best.i);
    long double _Complex ca[2] = {1.0L / 3 + 2.0L * I, 1e3000L - 0.5L * I}, cb[2] = {0.1L - 7.0L * I, 3.0L + 1e-3000L * I}, cw[2];
    for (int k = 0; k < 2; k++)
        cw[k] = ca[k] * cb[k];
    TRY(MPI_Reduce_local(ca, cb, 2, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD));
    for (int k = 0; k < 2; k++)
        CHECK(same10(creall(cb[k]), creall(cw[k])) && same10(cimagl(cb[k]), cimagl(cw[k])), "complex product %d: %La%+Lai, want %La%+Lai", k,
              creall(cb[k]), cimagl(cb[k]), creall(cw[k]), cimagl(cw[k]));
    unsigned char ext[32];
    MPI_Aint pos = 0;
    long double two[2] = {1.0L, -0.1L}, back[2];
    TRY(MPI_Pack_external("external32", two, 2, MPI_LONG_DOUBLE, ext, sizeof ext, &pos));
    CHECK(pos == 32 && ext[0] == 0x3f && ext[1] == 0xff && ext[2] == 0 && ext[16] == 0xbf && ext[17] == 0xfb,
          "external32 of 1 and -0.1: %d bytes, %02x%02x%02x, %02x%02x", (int)pos, ext[0], ext[1], ext[2], ext[16], ext[17]);
    pos = 0;
    TRY(MPI_Unpack_external("external32", ext, sizeof ext, &pos, back, 2, MPI_LONG_DOUBLE));
    CHECK(same10(back[0], two[0]) && same10(back[1], two[1]), "external32 round trip: %La %La", back[0], back[1]);
    int sz;
    TRY(MPI_Type_size(MPI_LONG_DOUBLE_INT, &sz));
    EQ(sz, 20, "MPI_LONG_DOUBLE_INT's size");
    passed("long double");
}

/* A struct type's extent is padded to its members' strictest alignment,
   as C pads the struct: a count of them steps over a C array. */
static void struct_padding(void) {
    struct ic { int i; char c; } out[2] = {{1, 'a'}, {2, 'b'}}, in[2] = {{0, 0}, {0, 0}};
    struct dc { double d; char c; };
    struct cc { char a, b; };
    MPI_Datatype tic, tdc, tcc, t2[2] = {MPI_INT, MPI_CHAR}, t3[2] = {MPI_DOUBLE, MPI_CHAR}, t4[2] = {MPI_CHAR, MPI_CHAR};
    int bl[2] = {1, 1};
    MPI_Aint dic[2] = {offsetof(struct ic, i), offsetof(struct ic, c)}, ddc[2] = {offsetof(struct dc, d), offsetof(struct dc, c)},
             dcc[2] = {offsetof(struct cc, a), offsetof(struct cc, b)}, lb, ext, tlb, text;
    TRY(MPI_Type_create_struct(2, bl, dic, t2, &tic));
    TRY(MPI_Type_create_struct(2, bl, ddc, t3, &tdc));
    TRY(MPI_Type_create_struct(2, bl, dcc, t4, &tcc));
    TRY(MPI_Type_get_extent(tic, &lb, &ext));
    TRY(MPI_Type_get_true_extent(tic, &tlb, &text));
    CHECK(lb == 0 && ext == sizeof(struct ic) && text == 5, "{int, char}: extent %ld, true extent %ld; want %zu and 5",
          (long)ext, (long)text, sizeof(struct ic));
    TRY(MPI_Type_get_extent(tdc, &lb, &ext));
    EQ((long)ext, (long)sizeof(struct dc), "{double, char}'s extent");
    TRY(MPI_Type_get_extent(tcc, &lb, &ext));
    EQ((long)ext, (long)sizeof(struct cc), "{char, char}'s extent");
    TRY(MPI_Type_commit(&tic));
    TRY(MPI_Sendrecv(out, 2, tic, rank, 9, in, 2, tic, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0].i == 1 && in[0].c == 'a' && in[1].i == 2 && in[1].c == 'b', "two {int, char} to self: (%d %c) (%d %c)",
          in[0].i, in[0].c, in[1].i, in[1].c);
    TRY(MPI_Type_free(&tic));
    TRY(MPI_Type_free(&tdc));
    TRY(MPI_Type_free(&tcc));
    passed("struct padding");
}

/* Counts set on a status are basic elements; a count or size beyond an
   int is MPI_UNDEFINED in the int forms and whole in the MPI_Count ones. */
static void status_counts(void) {
    MPI_Status st;
    MPI_Datatype four, big;
    int c = -1, e = -1, sz = -1;
    MPI_Count cc = -1, ce = -1, csz = -1, many = 0x3654321f71234567LL;
    TRY(MPI_Type_contiguous(4, MPI_INT, &four));
    TRY(MPI_Type_commit(&four));
    TRY(MPI_Status_set_elements(&st, four, 6));
    TRY(MPI_Get_elements(&st, four, &e));
    TRY(MPI_Get_count(&st, four, &c));
    CHECK(e == 6 && c == MPI_UNDEFINED, "6 ints set on 4 x MPI_INT: %d elements, count %d", e, c);
    st.MPI_SOURCE = MPI_ANY_SOURCE, st.MPI_TAG = 3, st.MPI_ERROR = MPI_ERR_OTHER;
    TRY(MPI_Status_set_elements(&st, four, 8));
    TRY(MPI_Get_count(&st, four, &c));
    EQ(c, 2, "MPI_Get_count of 8 ints set on 4 x MPI_INT");
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == 3 && st.MPI_ERROR == MPI_ERR_OTHER,
          "MPI_Status_set_elements changed the other fields: source %d, tag %d, error %d", st.MPI_SOURCE, st.MPI_TAG,
          st.MPI_ERROR);
    TRY(MPI_Status_set_elements_x(&st, MPI_BYTE, many));
    TRY(MPI_Get_elements_c(&st, MPI_BYTE, &ce));
    TRY(MPI_Get_count_c(&st, MPI_BYTE, &cc));
    TRY(MPI_Get_count(&st, MPI_BYTE, &c));
    TRY(MPI_Get_elements(&st, MPI_BYTE, &e));
    CHECK(ce == many && cc == many && c == MPI_UNDEFINED && e == MPI_UNDEFINED,
          "%llx bytes: elements_c %llx, count_c %llx, count %d, elements %d", (long long)many, (long long)ce, (long long)cc, c, e);
    TRY(MPI_Type_vector(1 << 29, 1, 3, four, &big)); /* 8 GiB of data */
    TRY(MPI_Type_size(big, &sz));
    TRY(MPI_Type_size_c(big, &csz));
    CHECK(sz == MPI_UNDEFINED && csz == 16LL << 29, "size of an 8 GiB type: %d, size_c %lld", sz, (long long)csz);
    TRY(MPI_Type_free(&big));
    TRY(MPI_Type_free(&four));
    passed("status counts");
}

/* fortran_kind checks what MPI_Type_create_f90_* made: its size, envelope
 * and contents, and that the same call gives the same handle. */
static void fortran_kind(MPI_Datatype t, int combiner, int p, int r, int want, const char *what) {
    int sz = 0, ints[2] = {-1, -1}, ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    TRY(MPI_Type_size(t, &sz));
    EQ(sz, want, what);
    envelope(t, ni, 0, 0, combiner, what);
    TRY(MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types));
    if (ni == 1)
        CHECK(ints[0] == r, "%s: contents %d, want %d", what, ints[0], r);
    else
        CHECK(ints[0] == p && ints[1] == r, "%s: contents %d %d, want %d %d", what, ints[0], ints[1], p, r);
}

/* fortran_pairs_and_logicals: MINLOC and MAXLOC on the pairs whose index
 * is a real, and the logical operations on logicals whose .TRUE. is -1 on
 * some ranks and 1 on others: a result holds one of its operands' true
 * values, or zero; an arithmetic operation on a logical is MPI_ERR_OP. */
static void fortran_pairs_and_logicals(void) {
    struct {
        float v, i;
    } r = {(float)(rank % 2), (float)rank}, rmin = {0, 0};
    TRY(MPI_Allreduce(&r, &rmin, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(rmin.v == 1 && rmin.i == 1, "MAXLOC on MPI_2REAL: %g at %g", rmin.v, rmin.i);
    struct {
        double v, i;
    } d = {10.0 - rank, 0.5 * rank}, dmin = {0, 0};
    TRY(MPI_Allreduce(&d, &dmin, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(dmin.v == 10.0 - (size - 1) && dmin.i == 0.5 * (size - 1), "MINLOC on MPI_2DOUBLE_PRECISION: %g at %g",
          dmin.v, dmin.i);
    MPI_Datatype p = MPI_DATATYPE_NULL;
    TRY(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &p));
    CHECK(p == MPI_2REAL, "MPI_Type_get_value_index(MPI_REAL, MPI_REAL) gave %#x", MPI_Type_toint(p));
    TRY(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, &p));
    CHECK(p == MPI_2DOUBLE_PRECISION, "MPI_Type_get_value_index of two doubles gave %#x", MPI_Type_toint(p));

    int32_t yes = rank % 2 ? 1 : -1; /* gfortran's .TRUE. and Intel's */
    int32_t all = 7, any = 7, odd = 7, only0 = 7, none = 7;
    int32_t mine0 = rank == 0 ? yes : 0, no = 0;
    TRY(MPI_Allreduce(&yes, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&mine0, &any, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&yes, &odd, 1, MPI_LOGICAL4, MPI_LXOR, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&mine0, &only0, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&no, &none, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(all == 1 || all == -1, "LAND of trues gave %d", all);
    CHECK(any == -1, "LOR of rank 0's -1 and falses gave %d, want -1", any);
    CHECK(size % 2 ? odd != 0 : odd == 0, "LXOR of %d trues gave %d", size, odd);
    CHECK(only0 == 0 && none == 0, "LAND with a false gave %d, LOR of falses %d", only0, none);
    int8_t y1 = rank == 1, o1 = 7;
    int64_t y8 = rank == 1 ? -1 : 0, o8 = 7;
    TRY(MPI_Allreduce(&y1, &o1, 1, MPI_LOGICAL1, MPI_LOR, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&y8, &o8, 1, MPI_LOGICAL8, MPI_LOR, MPI_COMM_WORLD));
    CHECK(o1 == 1 && o8 == -1, "LOR on MPI_LOGICAL1 and 8 gave %d and %lld", o1, (long long)o8);
    RC(MPI_Allreduce(&yes, &all, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Allreduce(&yes, &all, 1, MPI_LOGICAL, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    RC(MPI_Allreduce(&r, &rmin, 1, MPI_2REAL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
}

/* sixteen_byte_kinds: gfortran's INTEGER(16), two's complement whose
 * sums carry from the low word into the high one, and LOGICAL(16), true
 * when any of its bytes is, across the ranks; MPI_INTEGER16 in
 * external32 is big-endian. */
static void sixteen_byte_kinds(void) {
    MPI_Datatype m = MPI_DATATYPE_NULL;
    TRY(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &m));
    CHECK(m == MPI_INTEGER16, "MPI_Type_match_size of a 16-byte integer gave %#x", MPI_Type_toint(m));

    __int128 v[2] = {(__int128)UINT64_MAX - rank, -(__int128)(rank + 1)}, s[2] = {0, 0};
    TRY(MPI_Allreduce(v, s, 2, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    __int128 want0 = (__int128)size * UINT64_MAX - size * (size - 1) / 2, want1 = -(__int128)(size * (size + 1) / 2);
    CHECK(s[0] == want0 && s[1] == want1, "MPI_SUM on MPI_INTEGER16: words %#llx:%#llx and %lld",
          (unsigned long long)(s[0] >> 64), (unsigned long long)s[0], (long long)s[1]);
    __int128 x = -((__int128)rank << 70), lo = 1, hi = 1;
    TRY(MPI_Allreduce(&x, &lo, 1, MPI_INTEGER16, MPI_MIN, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&x, &hi, 1, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == -((__int128)(size - 1) << 70) && hi == 0, "MIN and MAX on MPI_INTEGER16 gave high words %lld and %lld",
          (long long)(lo >> 64), (long long)(hi >> 64));
    __int128 f = (__int128)1 << 40, prod = 0;
    TRY(MPI_Allreduce(&f, &prod, 1, MPI_INTEGER16, MPI_PROD, MPI_COMM_WORLD));
    CHECK(prod == (40 * size < 128 ? (__int128)1 << (40 * size) : 0), "MPI_PROD of 2^40 on %d ranks: words %#llx:%#llx",
          size, (unsigned long long)(prod >> 64), (unsigned long long)prod);

    struct {
        uint64_t lo, hi;
    } l = {0, rank % 2 ? 3 : 0}, any = {7, 7}, all = {7, 7}; /* true in the high word only */
    TRY(MPI_Allreduce(&l, &any, 1, MPI_LOGICAL16, MPI_LOR, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&l, &all, 1, MPI_LOGICAL16, MPI_LAND, MPI_COMM_WORLD));
    CHECK(any.lo == 0 && any.hi == 3 && all.lo == 0 && all.hi == 0, "LOR and LAND on MPI_LOGICAL16: %llx:%llx, %llx:%llx",
          (unsigned long long)any.hi, (unsigned long long)any.lo, (unsigned long long)all.hi,
          (unsigned long long)all.lo);
    RC(MPI_Allreduce(&l, &any, 1, MPI_LOGICAL16, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);

    __int128 e = -2, back = 0;
    unsigned char ext[16];
    MPI_Aint pos = 0, at = 0;
    TRY(MPI_Pack_external("external32", &e, 1, MPI_INTEGER16, ext, sizeof ext, &pos));
    CHECK(pos == 16 && ext[0] == 0xff && ext[14] == 0xff && ext[15] == 0xfe, "-2 as MPI_INTEGER16 in external32: %ld bytes, %02x..%02x",
          (long)pos, ext[0], ext[15]);
    TRY(MPI_Unpack_external("external32", ext, sizeof ext, &at, &back, 1, MPI_INTEGER16));
    CHECK(back == -2, "MPI_INTEGER16 back from external32: %lld", (long long)back);
}

/* next64 is a 64-bit LCG, for operands that cover the formats' ranges. */
static uint64_t lcg = 88172645463325252ull;
static uint64_t next64(void) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return lcg ^ (lcg >> 29);
}

/* quad is a binary128 of the sign, the biased exponent and a random
 * fraction. */
static __float128 quad(int sign, int exp) {
    uint64_t w[2] = {next64(), (uint64_t)sign << 63 | (uint64_t)exp << 48 | (next64() & 0xffffffffffffull)};
    __float128 q;
    memcpy(&q, w, 16);
    return q;
}

static unsigned long long qword(__float128 q, int high) {
    uint64_t w[2];
    memcpy(w, &q, 16);
    return w[high];
}

static __float128 pow2(int e) { /* 2^e, e <= 0, exact to the smallest denormal */
    __float128 q = 1;
    while (e++ < 0)
        q /= 2;
    return q;
}

/* half_and_quad: Fortran's REAL(2), COMPLEX(2), REAL(16) and COMPLEX(16),
 * which are C's _Float16 and __float128: reductions across the ranks
 * that only their precision holds, and local ones that give what C's own
 * arithmetic gives, bit for bit, rounding, denormals and overflow
 * included; external32 is big-endian. */
enum { NQ = 4096, NH = 4096 };
static __float128 qa[NQ], qb[NQ], qsum[NQ], qprod[NQ], qmin[NQ], qout[NQ];
static uint16_t ha[NH], hb[NH], hout[NH], hwant[3][NH];
static void half_and_quad(void) {
    struct {
        MPI_Datatype t;
        int class, size;
    } match[] = {{MPI_REAL2, MPI_TYPECLASS_REAL, 2},
                 {MPI_REAL16, MPI_TYPECLASS_REAL, 16},
                 {MPI_COMPLEX4, MPI_TYPECLASS_COMPLEX, 4},
                 {MPI_COMPLEX32, MPI_TYPECLASS_COMPLEX, 32}};
    for (size_t k = 0; k < sizeof match / sizeof match[0]; k++) {
        MPI_Datatype m = MPI_DATATYPE_NULL;
        TRY(MPI_Type_match_size(match[k].class, match[k].size, &m));
        CHECK(m == match[k].t, "MPI_Type_match_size(%d, %d) gave %#x", match[k].class, match[k].size, MPI_Type_toint(m));
    }

    __float128 tiny = pow2(-100), v = 1 + rank * tiny, s = 0;
    TRY(MPI_Allreduce(&v, &s, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == size + size * (size - 1) / 2 * tiny, "MPI_SUM on MPI_REAL16 lost the low bits: %g", (double)(s - size));
    __float128 x = 1 + pow2(-28), p = 0, want = 1; /* x^4's bits fit in 113 */
    for (int i = 0; i < size; i++)
        want *= x;
    TRY(MPI_Allreduce(&x, &p, 1, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD));
    CHECK(size > 4 || p == want, "MPI_PROD on MPI_REAL16 of 1+2^-28 on %d ranks: off by %g", size, (double)(p - want));
    __float128 den = -rank * pow2(-16400), lo = 1, hi = 1;
    TRY(MPI_Allreduce(&den, &lo, 1, MPI_REAL16, MPI_MIN, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&den, &hi, 1, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == -(size - 1) * pow2(-16400) && hi == 0, "MIN and MAX of denormals on MPI_REAL16");
    __float128 z[2] = {rank, 1 + rank * tiny}, zs[2] = {0, 0};
    TRY(MPI_Allreduce(z, zs, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
    CHECK(zs[0] == size * (size - 1) / 2 && zs[1] == size + size * (size - 1) / 2 * tiny, "MPI_SUM on MPI_COMPLEX32");
    _Float16 h = 0.5f16 + rank / 256.0f16, hs = 0; /* sums exact in 11 bits */
    TRY(MPI_Allreduce(&h, &hs, 1, MPI_REAL2, MPI_SUM, MPI_COMM_WORLD));
    CHECK(hs == (_Float16)(size / 2.0 + size * (size - 1) / 2 / 256.0), "MPI_SUM on MPI_REAL2 gave %g", (double)hs);
    _Float16 hz[2] = {rank, -2 * rank}, hzs[2] = {0, 0};
    TRY(MPI_Allreduce(hz, hzs, 1, MPI_COMPLEX4, MPI_SUM, MPI_COMM_WORLD));
    CHECK(hzs[0] == size * (size - 1) / 2 && hzs[1] == -size * (size - 1), "MPI_SUM on MPI_COMPLEX4 gave (%g,%g)",
          (double)hzs[0], (double)hzs[1]);

    /* Operands from denormals to the largest exponent: sums whose
     * exponents are close enough to round, products that land below the
     * normal range, or past it. */
    static const int exps[] = {0, 1, 2, 60, 112, 0x3fff, 0x3fff, 0x3fff, 8000, 8300, 0x7ffd, 0x7ffe};
    int ne = sizeof exps / sizeof exps[0];
    for (int i = 0; i < NQ; i++) {
        int ea = exps[next64() % ne], eb;
        switch (i % 3) {
        case 0:
            eb = ea - (int)(next64() % 120);
            break;
        case 1:
            eb = exps[next64() % ne];
            break;
        default:
            eb = 0x3fff - ea + 5 - (int)(next64() % 130);
        }
        eb = eb < 0 ? 0 : eb > 0x7ffe ? 0x7ffe : eb;
        qa[i] = quad(next64() & 1, ea);
        qb[i] = quad(next64() & 1, eb);
        qsum[i] = qa[i] + qb[i];
        qprod[i] = qa[i] * qb[i];
        qmin[i] = qa[i] < qb[i] ? qa[i] : qb[i];
    }
    struct {
        MPI_Op op;
        const __float128 *want;
        const char *name;
    } qops[] = {{MPI_SUM, qsum, "MPI_SUM"}, {MPI_PROD, qprod, "MPI_PROD"}, {MPI_MIN, qmin, "MPI_MIN"}};
    for (size_t k = 0; k < sizeof qops / sizeof qops[0]; k++) {
        memcpy(qout, qb, sizeof qb);
        TRY(MPI_Reduce_local(qa, qout, NQ, MPI_REAL16, qops[k].op));
        for (int i = 0; i < NQ; i++)
            CHECK(memcmp(&qout[i], &qops[k].want[i], 16) == 0, "%s on MPI_REAL16 operands %d: %016llx:%016llx, C gives %016llx:%016llx",
                  qops[k].name, i, qword(qout[i], 1), qword(qout[i], 0), qword(qops[k].want[i], 1), qword(qops[k].want[i], 0));
    }

    /* Halves: a sum or product is exact in a double, a complex product's
     * parts in a __float128, so C's one conversion rounds it once. */
    for (int i = 0; i < NH; i++) {
        do
            ha[i] = (uint16_t)next64();
        while ((ha[i] & 0x7c00) == 0x7c00);
        do
            hb[i] = (uint16_t)next64();
        while ((hb[i] & 0x7c00) == 0x7c00);
    }
    for (int i = 0; i < NH; i++) {
        _Float16 a, b, r;
        memcpy(&a, &ha[i], 2);
        memcpy(&b, &hb[i], 2);
        r = (_Float16)((double)a + (double)b);
        memcpy(&hwant[0][i], &r, 2);
        r = (_Float16)((double)a * (double)b);
        memcpy(&hwant[1][i], &r, 2);
        if (i % 2 == 0) {
            _Float16 c, d, re, im; /* (a+bi)(c+di): a and b from ha, c and d from hb */
            memcpy(&b, &ha[i + 1], 2);
            memcpy(&c, &hb[i], 2);
            memcpy(&d, &hb[i + 1], 2);
            re = (_Float16)((__float128)a * c - (__float128)b * d);
            im = (_Float16)((__float128)a * d + (__float128)b * c);
            memcpy(&hwant[2][i], &re, 2);
            memcpy(&hwant[2][i + 1], &im, 2);
        }
    }
    struct {
        MPI_Datatype t;
        MPI_Op op;
        int count;
        const char *name;
    } hops[] = {{MPI_REAL2, MPI_SUM, NH, "MPI_SUM on MPI_REAL2"},
                {MPI_REAL2, MPI_PROD, NH, "MPI_PROD on MPI_REAL2"},
                {MPI_COMPLEX4, MPI_PROD, NH / 2, "MPI_PROD on MPI_COMPLEX4"}};
    for (size_t k = 0; k < sizeof hops / sizeof hops[0]; k++) {
        memcpy(hout, hb, sizeof hb);
        TRY(MPI_Reduce_local(ha, hout, hops[k].count, hops[k].t, hops[k].op));
        for (int i = 0; i < NH; i++)
            CHECK(hout[i] == hwant[k][i], "%s of %#06x and %#06x (word %d): %#06x, C gives %#06x", hops[k].name, ha[i],
                  hb[i], i, hout[i], hwant[k][i]);
    }

    unsigned char ext[16], mem[16];
    MPI_Aint pos = 0, at = 0;
    __float128 e = qa[7], back = 0;
    TRY(MPI_Pack_external("external32", &e, 1, MPI_REAL16, ext, sizeof ext, &pos));
    memcpy(mem, &e, 16);
    int reversed = pos == 16;
    for (int i = 0; i < 16; i++)
        reversed &= ext[i] == mem[15 - i];
    CHECK(reversed, "MPI_REAL16 in external32 (%ld bytes) is not the value big-endian", (long)pos);
    TRY(MPI_Unpack_external("external32", ext, sizeof ext, &at, &back, 1, MPI_REAL16));
    CHECK(memcmp(&back, &e, 16) == 0, "MPI_REAL16 back from external32 differs");
    passed("half and quadruple precision");
}

/* fortran_types: Fortran's predefined types from C: sizes and names,
 * sums across the ranks, MINLOC on MPI_2INTEGER, and the kinds
 * MPI_Type_create_f90_* choose. */
static void fortran_types(void) {
    struct {
        MPI_Datatype t;
        int size;
        const char *name;
    } named[] = {
        {MPI_INTEGER1, 1, "MPI_INTEGER1"}, {MPI_INTEGER2, 2, "MPI_INTEGER2"}, {MPI_INTEGER4, 4, "MPI_INTEGER4"},
        {MPI_INTEGER8, 8, "MPI_INTEGER8"}, {MPI_REAL4, 4, "MPI_REAL4"}, {MPI_REAL8, 8, "MPI_REAL8"},
        {MPI_COMPLEX8, 8, "MPI_COMPLEX8"}, {MPI_COMPLEX16, 16, "MPI_COMPLEX16"}, {MPI_INTEGER, 4, "MPI_INTEGER"},
        {MPI_REAL, 4, "MPI_REAL"}, {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"}, {MPI_COMPLEX, 8, "MPI_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"}, {MPI_CHARACTER, 1, "MPI_CHARACTER"},
        {MPI_2INTEGER, 8, "MPI_2INTEGER"}, {MPI_2REAL, 8, "MPI_2REAL"},
        {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"}, {MPI_LOGICAL, 4, "MPI_LOGICAL"},
        {MPI_LOGICAL1, 1, "MPI_LOGICAL1"}, {MPI_LOGICAL2, 2, "MPI_LOGICAL2"}, {MPI_LOGICAL4, 4, "MPI_LOGICAL4"},
        {MPI_LOGICAL8, 8, "MPI_LOGICAL8"}, {MPI_LOGICAL16, 16, "MPI_LOGICAL16"},
        {MPI_INTEGER16, 16, "MPI_INTEGER16"}, {MPI_REAL2, 2, "MPI_REAL2"}, {MPI_COMPLEX4, 4, "MPI_COMPLEX4"},
        {MPI_REAL16, 16, "MPI_REAL16"}, {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
    };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        int sz = 0, len = 0;
        char name[MPI_MAX_OBJECT_NAME];
        TRY(MPI_Type_size(named[k].t, &sz));
        EQ(sz, named[k].size, named[k].name);
        TRY(MPI_Type_get_name(named[k].t, name, &len));
        CHECK(strcmp(name, named[k].name) == 0, "the name of %s: %s", named[k].name, name);
        envelope(named[k].t, 0, 0, 0, MPI_COMBINER_NAMED, named[k].name);
    }

    int8_t i1 = 1, s1 = 0;
    int32_t i4 = rank + 1, s4 = 0;
    int64_t i8 = (int64_t)(rank + 1) << 40, s8 = 0;
    double r8 = rank + 0.5, sr8 = 0;
    double complex z = rank + 2.0 * rank * I, sz16 = 0;
    TRY(MPI_Allreduce(&i1, &s1, 1, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&i4, &s4, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&i8, &s8, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&r8, &sr8, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
    TRY(MPI_Allreduce(&z, &sz16, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    int tri = size * (size + 1) / 2;
    CHECK(s1 == size && s4 == tri && s8 == (int64_t)tri << 40 && sr8 == size * size / 2.0 &&
              sz16 == (tri - size) * (1.0 + 2.0 * I),
          "Fortran sums %d %d %lld %g (%g,%g)", s1, s4, (long long)s8, sr8, creal(sz16), cimag(sz16));
    struct {
        int32_t v, i;
    } in = {100 - rank / 2, rank}, out = {0, 0};
    TRY(MPI_Allreduce(&in, &out, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(out.v == 100 - (size - 1) / 2 && out.i == (size - 1) / 2 * 2, "MINLOC on MPI_2INTEGER: %d at %d", out.v, out.i);

    fortran_pairs_and_logicals();
    sixteen_byte_kinds();
    half_and_quad();

    MPI_Datatype t, again, dup, types[1];
    int ints[2];
    MPI_Aint addrs[1];
    int kinds[][3] = {{2, 1}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}, {19, 16}, {38, 16}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        TRY(MPI_Type_create_f90_integer(kinds[k][0], &t));
        fortran_kind(t, MPI_COMBINER_F90_INTEGER, 0, kinds[k][0], kinds[k][1], "an f90 integer kind");
    }
    int reals[][3] = {{6, 37, 4},   {7, MPI_UNDEFINED, 8},  {MPI_UNDEFINED, 38, 8},   {MPI_UNDEFINED, MPI_UNDEFINED, 4},
                      {15, 307, 8}, {3, 10, 4},             {16, MPI_UNDEFINED, 16}, {MPI_UNDEFINED, 308, 16},
                      {33, 4931, 16}};
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) {
        TRY(MPI_Type_create_f90_real(reals[k][0], reals[k][1], &t));
        fortran_kind(t, MPI_COMBINER_F90_REAL, reals[k][0], reals[k][1], reals[k][2], "an f90 real kind");
        TRY(MPI_Type_create_f90_complex(reals[k][0], reals[k][1], &t));
        fortran_kind(t, MPI_COMBINER_F90_COMPLEX, reals[k][0], reals[k][1], 2 * reals[k][2], "an f90 complex kind");
    }
    TRY(MPI_Type_create_f90_real(7, 30, &t));
    TRY(MPI_Type_create_f90_real(7, 30, &again));
    CHECK(t == again, "two MPI_Type_create_f90_real(7, 30) gave %#x and %#x", MPI_Type_toint(t),
          MPI_Type_toint(again));
    {
        double a[2] = {1.5, -2}, b[2] = {0.25, 4}, got[2] = {0, 0};
        MPI_Request q[2];
        TRY(MPI_Reduce_local(a, b, 2, t, MPI_SUM));
        CHECK(b[0] == 1.75 && b[1] == 2, "MPI_Reduce_local on an f90 real: %g %g", b[0], b[1]);
        TRY(MPI_Irecv(got, 2, t, 0, 7, MPI_COMM_SELF, &q[0]));
        TRY(MPI_Isend(b, 2, t, 0, 7, MPI_COMM_SELF, &q[1]));
        TRY(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(got[0] == 1.75 && got[1] == 2, "an f90 real to itself: %g %g", got[0], got[1]);
    }
    TRY(MPI_Type_dup(t, &dup));
    envelope(dup, 0, 0, 1, MPI_COMBINER_DUP, "a dup of an f90 real");
    TRY(MPI_Type_get_contents(dup, 0, 0, 1, ints, addrs, types));
    CHECK(types[0] == t, "the dup's old type %#x, want %#x", MPI_Type_toint(types[0]), MPI_Type_toint(t));
    TRY(MPI_Type_free(&dup));
    RC(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK(t == again, "a refused free changed the handle");
    RC(MPI_Type_create_f90_integer(39, &t), MPI_ERR_ARG);
    RC(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    RC(MPI_Type_create_f90_complex(MPI_UNDEFINED, 4932, &t), MPI_ERR_ARG);
    RC(MPI_Type_create_f90_real(-2, 10, &t), MPI_ERR_ARG);
    passed("Fortran's types and MPI_Type_create_f90_*");
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "run with 2 or more ranks (got %d)", size);
    constructors();
    exchange();
    packing();
    external_sizes();
    errors();
    decoding();
    large_decoding();
    darrays();
    pairs();
    status_counts();
    struct_padding();
    negative_offsets();
    absolute_addresses();
    long_double();
    fortran_types();
    TRY(MPI_Finalize());
    return 0;
}
