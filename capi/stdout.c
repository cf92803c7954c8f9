/* Under gompirun a rank's standard output is a pipe, which C's stdio
 * buffers in blocks: a progress line printf writes would show only when
 * 4 KiB gathered or at exit, and be lost if gompirun stops the rank
 * because another failed. As Open MPI's ranks, whose output is a
 * terminal, a rank writes it line by line. Elsewhere (a singleton, output
 * to a file or a terminal) stdio chooses as usual. The library's
 * constructors run before the program's, so before any output. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((constructor)) static void gompi_stdout_lines(void) {
    struct stat st;
    if (getenv("GOMPI_JOB_ID") == NULL || fstat(STDOUT_FILENO, &st) != 0) {
        return;
    }
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    }
}
