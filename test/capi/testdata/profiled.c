/* Builds, commits, packs with and frees a datatype, and fills an Info:
 * calls a Go profiling tool sees as it sees a Go program's (capi_test's
 * TestToolsSeeTypeAndInfoCalls counts them under prof stats). Runs with
 * any number of ranks. */
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

    TRY(MPI_Info_create(&info));
    TRY(MPI_Info_set(info, "a", "1"));
    TRY(MPI_Info_set(info, "b", "2"));
    TRY(MPI_Info_free(&info));
    passed("info_create, info_set, info_free");
    TRY(MPI_Finalize());
    return 0;
}
