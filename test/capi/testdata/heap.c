/* The library sets glibc's thresholds as a free of 32 MiB would (capi/
 * malloc.c): a block of 1 MiB comes from the heap, below the program
 * break, not from a mapping of its own. With MALLOC_MMAP_THRESHOLD_ in
 * the environment (HEAP_MAPPED=1) the program's choice stands: the block
 * is mapped. */
#define _DEFAULT_SOURCE
#include "check.h"
#include <unistd.h>

extern char end; /* the end of the program's data: the heap starts past it */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_rank = rank;
    char *p = malloc(1 << 20);
    CHECK(p != NULL, "malloc of 1 MiB failed");
    memset(p, 1, 1 << 20);
    int heaped = p > &end && p < (char *)sbrk(0);
    int mapped = getenv("HEAP_MAPPED") != NULL;
    CHECK(heaped != mapped, "a block of 1 MiB at %p, the heap ending at %p: %s, want %s", (void *)p, sbrk(0),
          heaped ? "in the heap" : "mapped", mapped ? "mapped" : "in the heap");
    free(p);
    printf("ok heap rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
