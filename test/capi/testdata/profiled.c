/* Builds, commits, packs with and frees a datatype, builds a darray, and
 * fills an Info: calls a Go profiling tool sees as it sees a Go program's
 * (capi_test's TestToolsSeeTypeAndInfoCalls counts them under prof
 * stats). Runs with any number of ranks. */
#include "check.h"

int main(int argc, char **argv) {
    double grid[12], back[12];
    char packed[64];
    int pos = 0, out = 0;
    MPI_Datatype col;
    MPI_Info info;

    start(&argc, &argv);
    for (int i = 0; i < 12; i++) {
        grid[i] = 100 * check_rank + i;
        back[i] = 0;
    }
    /* A column of a 4x3 grid: 32 bytes of data. */
    TRY(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &col));
    TRY(MPI_Type_commit(&col));
    TRY(MPI_Pack(grid, 1, col, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    EQ(pos, 32, "packed bytes");
    TRY(MPI_Unpack(packed, sizeof packed, &out, back, 1, col, MPI_COMM_WORLD));
    EQ(out, 32, "unpacked bytes");
    CHECK(back[9] == grid[9] && back[1] == 0, "unpacked %g and %g", back[9], back[1]);
    TRY(MPI_Type_free(&col));
    passed("type_vector, type_commit, pack, unpack, type_free");

    /* This rank's rows of an 8x3 array dealt out by blocks of rows. */
    int size, gsizes[2] = {8, 3}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, psizes[2] = {0, 1}, rows, sz = -1;
    MPI_Datatype mine;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    psizes[0] = size;
    TRY(MPI_Type_create_darray(size, check_rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &mine));
    TRY(MPI_Type_commit(&mine));
    TRY(MPI_Type_size(mine, &sz));
    int b = (8 + size - 1) / size, first = check_rank * b; /* blocks of b rows */
    rows = first >= 8 ? 0 : (8 - first < b ? 8 - first : b);
    EQ(sz, rows * 3 * (int)sizeof(double), "the darray's bytes");
    TRY(MPI_Type_free(&mine));
    passed("type_create_darray, type_commit, type_free");

    TRY(MPI_Info_create(&info));
    TRY(MPI_Info_set(info, "a", "1"));
    TRY(MPI_Info_set(info, "b", "2"));
    TRY(MPI_Info_free(&info));
    passed("info_create, info_set, info_free");
    TRY(MPI_Finalize());
    return 0;
}
