/* The Fortran ABI calls, which a Fortran binding layer makes once:
 * MPI_Abi_set_fortran_booleans (here before MPI_Init, as such a layer
 * may) and MPI_Abi_set_fortran_info, whose sizes then give Fortran's
 * default kinds (INTEGER, REAL and LOGICAL of 8 bytes, as gfortran's
 * -fdefault-integer-8 and -fdefault-real-8 make them). A bad call changes
 * nothing; a second good one is MPI_ERR_ABI. Runs with any number of
 * ranks, or alone. */
#include "check.h"

#include <stdint.h>

static int rank, size;

static void booleans(void) {
    int32_t t = 0, f = 5;
    int is_set = -1;
    TRY(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    CHECK(is_set == 1 && t == -1 && f == 0, "the booleans set before MPI_Init: %d, %d/%d", is_set, t, f);
    int64_t t8 = 0, f8 = 0;
    TRY(MPI_Abi_get_fortran_booleans(8, &t8, &f8, &is_set));
    CHECK(is_set == 0, "LOGICAL(8)'s booleans reported set from LOGICAL(4)'s");
    int32_t one = 1, zero = 0;
    RC(MPI_Abi_set_fortran_booleans(4, &one, &zero), MPI_ERR_ABI);
    RC(MPI_Abi_set_fortran_booleans(4, &one, &one), MPI_ERR_ARG); /* .FALSE. must be zero */
    RC(MPI_Abi_set_fortran_booleans(4, &zero, &zero), MPI_ERR_ARG);
    RC(MPI_Abi_set_fortran_booleans(3, &one, &zero), MPI_ERR_ARG);
    RC(MPI_Abi_get_fortran_booleans(3, &t, &f, &is_set), MPI_ERR_ARG);
    passed("MPI_Abi_set_fortran_booleans and _get");
}

static void info(void) {
    MPI_Info got = (MPI_Info)0x1, bad, set;
    TRY(MPI_Abi_get_fortran_info(&got));
    CHECK(got == MPI_INFO_NULL, "MPI_Abi_get_fortran_info answered before anything was set");

    TRY(MPI_Info_create(&bad));
    TRY(MPI_Info_set(bad, "mpi_integer_size", "8"));
    TRY(MPI_Info_set(bad, "mpi_double_precision_size", "16"));
    RC(MPI_Abi_set_fortran_info(bad), MPI_ERR_ARG);
    TRY(MPI_Info_free(&bad));
    int sz = 0;
    TRY(MPI_Type_size(MPI_INTEGER, &sz));
    EQ(sz, 4, "MPI_INTEGER's size after a refused MPI_Abi_set_fortran_info");

    TRY(MPI_Info_create(&set));
    TRY(MPI_Info_set(set, "mpi_integer_size", "8"));
    TRY(MPI_Info_set(set, "mpi_real_size", "8"));
    TRY(MPI_Info_set(set, "mpi_logical_size", "8"));
    TRY(MPI_Info_set(set, "mpi_real16_supported", "false"));
    TRY(MPI_Abi_set_fortran_info(set));
    TRY(MPI_Info_free(&set));
    TRY(MPI_Abi_get_fortran_info(&got));
    CHECK(got != MPI_INFO_NULL, "MPI_Abi_get_fortran_info forgot what was set");
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    TRY(MPI_Info_get(got, "mpi_real16_supported", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, "false") == 0, "mpi_real16_supported read back as %d %s", flag, v);
    TRY(MPI_Info_free(&got));
    TRY(MPI_Info_create(&set));
    RC(MPI_Abi_set_fortran_info(set), MPI_ERR_ABI);
    TRY(MPI_Info_free(&set));

    struct {
        MPI_Datatype t;
        int size;
    } kinds[] = {{MPI_INTEGER, 8}, {MPI_REAL, 8}, {MPI_DOUBLE_PRECISION, 8}, {MPI_COMPLEX, 16},
                 {MPI_DOUBLE_COMPLEX, 16}, {MPI_LOGICAL, 8}, {MPI_2INTEGER, 16}, {MPI_2REAL, 16},
                 {MPI_INTEGER4, 4}, {MPI_LOGICAL4, 4}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        TRY(MPI_Type_get_name(kinds[k].t, name, &len));
        TRY(MPI_Type_size(kinds[k].t, &sz));
        EQ(sz, kinds[k].size, name);
    }

    int64_t big = (int64_t)(rank + 1) << 33, sum = 0;
    TRY(MPI_Allreduce(&big, &sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == ((int64_t)size * (size + 1) / 2) << 33, "8-byte INTEGERs summed to %lld", (long long)sum);
    int64_t yes = -1, all = 0;
    TRY(MPI_Allreduce(&yes, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(all == -1, "LAND of 8-byte .TRUE.s gave %lld", (long long)all);
    struct {
        int64_t v, i;
    } in = {rank % 2, rank}, out = {0, 0};
    TRY(MPI_Allreduce(&in, &out, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(out.v == 0 && out.i == 0, "MINLOC on 8-byte MPI_2INTEGER: %lld at %lld", (long long)out.v,
          (long long)out.i);
    passed("MPI_Abi_set_fortran_info and _get");
}

int main(int argc, char **argv) {
    int32_t t = -1, f = 0;
    TRY(MPI_Abi_set_fortran_booleans(4, &t, &f));
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    booleans();
    info();
    TRY(MPI_Finalize());
    return 0;
}
