/* A child that fork() makes without exec cannot use the library, whose Go
 * runtime lost its threads: its MPI calls end it with status 70 and a
 * message naming the call, rather than hang, before MPI_Init and after;
 * MPI_Initialized and MPI_Finalized answer, as an exit handler asks them.
 * The parent goes on as if nothing happened. */
#include "check.h"
#include <sys/wait.h>
#include <unistd.h>

/* forked runs f in a child, its stderr a pipe, and returns what the
 * child wrote there and its exit status. */
static int forked(void (*f)(void), char *said, size_t n) {
    int fd[2];
    CHECK(pipe(fd) == 0, "pipe");
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        f();
        _exit(0); /* f returned: the call did not end the child */
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got < n - 1 && (r = read(fd[0], said + got, n - 1 - got)) > 0)
        got += (size_t)r;
    said[got] = '\0';
    close(fd[0]);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    CHECK(WIFEXITED(st), "the child ended by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return WEXITSTATUS(st);
}

static void before_init(void) {
    int flag = -1;
    MPI_Initialized(&flag);
    if (flag != 0)
        _exit(3);
    int argc = 0;
    char **argv = NULL;
    MPI_Init(&argc, &argv);
}

static void after_init(void) {
    int flag = -1, fin = -1;
    MPI_Initialized(&flag);
    MPI_Finalized(&fin);
    if (flag != 1 || fin != 0)
        _exit(4);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    char said[1024];
    int st = forked(before_init, said, sizeof said);
    CHECK(st == 70 && strstr(said, "gompi: MPI_Init called in a child process that fork() made") != NULL,
          "a child calling MPI_Init: status %d, said \"%s\"", st, said);
    start(&argc, &argv);
    st = forked(after_init, said, sizeof said);
    CHECK(st == 70 && strstr(said, "gompi: MPI_Barrier called in a child process that fork() made") != NULL,
          "a child calling MPI_Barrier: status %d, said \"%s\"", st, said);
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    passed("fork");
    TRY(MPI_Finalize());
    return 0;
}
