/* glibc gives the top of a C program's heap back to the kernel once more
 * than a threshold is free there (128 KiB at first, then twice the largest
 * mmapped block freed). A program that allocates and frees its buffers at
 * each step then grows the heap again and faults its pages in anew: CoMD
 * on 2 ranks made 7,235 brk calls and 63,000 page faults where under Open
 * MPI it made 59 and 8,000, and took 1.4 times as long. So the library
 * sets what glibc would after a free of a 32 MiB block, its own ceiling:
 * blocks up to 32 MiB from the heap, and up to 64 MiB kept free at its
 * top, unless the program's environment chooses (MALLOC_MMAP_THRESHOLD_,
 * MALLOC_TRIM_THRESHOLD_, or either in GLIBC_TUNABLES). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

enum { mmap_threshold = 32 << 20 };

static int chosen(void) {
    const char *t = getenv("GLIBC_TUNABLES");
    return getenv("MALLOC_MMAP_THRESHOLD_") != NULL || getenv("MALLOC_TRIM_THRESHOLD_") != NULL ||
           (t != NULL && (strstr(t, "malloc.mmap_threshold") != NULL || strstr(t, "malloc.trim_threshold") != NULL));
}

__attribute__((constructor)) static void gompi_malloc_thresholds(void) {
#ifdef __GLIBC__
    if (!chosen()) {
        mallopt(M_MMAP_THRESHOLD, mmap_threshold);
        mallopt(M_TRIM_THRESHOLD, 2 * mmap_threshold);
    }
#endif
}
