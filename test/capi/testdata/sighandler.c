/* A signal handler that calls MPI on a thread inside an MPI call, as
 * Charm++'s SIGTERM handler does when a launcher stops its job: Go cannot
 * be entered again there. What C answers still answers (rank, size,
 * MPI_Initialized), MPI_Abort ends the process with its code, and any
 * other call ends it with status 70 naming the call; none crashes.
 * SIGHANDLER=abort or other says which the handler makes. */
#define _GNU_SOURCE
#include "check.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t main_tid;
static int receiving; /* the main thread is about to call MPI_Recv: it makes no system call before */
static const char *mode = "abort";

static void say(const char *s) {
    ssize_t n = write(STDOUT_FILENO, s, strlen(s));
    (void)n;
}

static void handler(int sig) {
    int rank = -1, size = -1, flag = 0;
    (void)sig;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank != 1 ||
        MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != 2 ||
        MPI_Initialized(&flag) != MPI_SUCCESS || !flag) {
        say("FAIL: the handler's rank, size or MPI_Initialized\n");
        _exit(9);
    }
    say("rank 1 handles the signal\n");
    if (strcmp(mode, "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    say("FAIL: the handler's barrier returned\n");
    _exit(9);
}

/* signaller waits until the main thread, past receiving, sleeps or
 * yields in a system call, which it then does only inside MPI_Recv, and
 * signals it. */
static void *signaller(void *arg) {
    char path[64], buf[64];
    (void)arg;
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)main_tid);
    while (!__atomic_load_n(&receiving, __ATOMIC_ACQUIRE))
        usleep(1000);
    for (;;) {
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0, "open %s", path);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = 0;
            long nr = strtol(buf, NULL, 10); /* "running" reads as 0 */
            if (nr == SYS_futex || nr == SYS_sched_yield || nr == SYS_epoll_pwait || nr == SYS_nanosleep)
                break;
        }
        usleep(1000);
    }
    syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
    return NULL;
}

int main(int argc, char **argv) {
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (getenv("SIGHANDLER") != NULL)
        mode = getenv("SIGHANDLER");
    if (rank == 1) {
        struct sigaction sa;
        pthread_t t;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
        main_tid = (pid_t)syscall(SYS_gettid);
        CHECK(pthread_create(&t, NULL, signaller, NULL) == 0, "pthread_create");
    }
    /* Neither rank sends: each waits until rank 1's handler ends the job. */
    __atomic_store_n(&receiving, 1, __ATOMIC_RELEASE);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
