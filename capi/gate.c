/* MPI_Test and MPI_Testany in C, in front of their Go implementations
 * (gate.h): a loop that tests a pending request costs a few loads a
 * round instead of a call into Go. */
#include <stddef.h>
#include "include/mpi.h"
#include "gate.h"

struct gompi_gate gompi_gate;

int gompi_go_PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int gompi_go_PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status);

/* holds reports whether the gate is armed, each of the n requests is
 * MPI_REQUEST_NULL or one it was armed with, one at least is not, and no
 * watched word moved. */
static int holds(const MPI_Request *reqs, int n) {
    if (!__atomic_load_n(&gompi_gate.armed, __ATOMIC_ACQUIRE))
        return 0;
    int some = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t h = (uintptr_t)reqs[i];
        if (h == (uintptr_t)MPI_REQUEST_NULL)
            continue;
        int known = 0;
        for (int j = 0; j < gompi_gate.nreqs && !known; j++)
            known = gompi_gate.req[j] == h;
        if (!known)
            return 0;
        some = 1;
    }
    for (int i = 0; some && i < gompi_gate.nwords; i++)
        if (__atomic_load_n(gompi_gate.word[i], __ATOMIC_ACQUIRE) != gompi_gate.value[i])
            return 0;
    return some;
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    if (request != NULL && flag != NULL && holds(request, 1)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return gompi_go_PMPI_Test(request, flag, status);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status) {
    if (count > 0 && count <= GOMPI_GATE_REQS && array_of_requests != NULL && indx != NULL && flag != NULL &&
        holds(array_of_requests, count)) {
        *flag = 0;
        *indx = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return gompi_go_PMPI_Testany(count, array_of_requests, indx, flag, status);
}
