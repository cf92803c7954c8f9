/* The scheduling ticker (sched.go): a C thread that moves an epoch every
 * schedPeriod while the thread that started MPI computes in C, so that
 * the calls' hot path tells "time to let Go's scheduler see this thread"
 * from one load. It samples that thread's caller slot (caller.h), set
 * while the thread is inside an MPI call, twice a period: an epoch moves
 * only if a sample found the thread outside MPI, so a thread that mostly
 * waits in MPI, which Go's monitor preempts there itself, is left alone.
 * The ticker never calls Go and blocks every signal, which go to the Go
 * threads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "caller.h"

/* Read by Go with an atomic load; written only by the ticker. */
__attribute__((visibility("hidden"))) uint32_t gompi_sched_epoch;

/* The live ticker's generation; a stop or a new start moves it, so that a
 * ticker still asleep when the library starts again ends at its next
 * tick instead of ticking beside its successor. */
static uint32_t generation;
/* The caller slot of the process's initial thread, if it started MPI:
 * its thread-local storage lives as long as the process. NULL otherwise,
 * and then every period moves the epoch. */
static void **watched;

static int outside(void) {
    void **w = __atomic_load_n(&watched, __ATOMIC_RELAXED);
    return w == NULL || __atomic_load_n(w, __ATOMIC_RELAXED) == NULL;
}

/* What a ticker is started with. */
struct tick {
    uint32_t generation;
    long half_period_ns;
};

static void *ticker(void *arg) {
    struct tick *t = arg;
    struct timespec ts = {0, t->half_period_ns};
    uint32_t mine = t->generation;
    int seen = 0, half = 0;
    free(t);
    pthread_setname_np(pthread_self(), "gompi-sched"); /* as ps and gdb show it */
    while (__atomic_load_n(&generation, __ATOMIC_RELAXED) == mine) {
        nanosleep(&ts, NULL);
        seen |= outside();
        if (++half == 2) {
            if (seen)
                __atomic_fetch_add(&gompi_sched_epoch, 1, __ATOMIC_RELAXED);
            seen = half = 0;
        }
    }
    return NULL;
}

/* gompi_sched_start starts the ticker with a period of ns nanoseconds
 * (below two seconds), watching the calling thread if it is the
 * process's initial one; 0 or an errno value from pthread_create. */
__attribute__((visibility("hidden"))) int gompi_sched_start(uint32_t ns) {
    sigset_t all, old;
    pthread_attr_t attr;
    pthread_t t;
    int err;
    struct tick *arg = malloc(sizeof *arg);
    if (arg == NULL)
        return ENOMEM;
    arg->half_period_ns = (long)(ns / 2);
    __atomic_store_n(&watched, gettid() == getpid() ? &gompi_caller : NULL, __ATOMIC_RELAXED);
    arg->generation = __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the mask */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    err = pthread_create(&t, &attr, ticker, arg);
    pthread_attr_destroy(&attr);
    if (err != 0)
        free(arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

/* gompi_sched_stop ends the ticker at its next tick. */
__attribute__((visibility("hidden"))) void gompi_sched_stop(void) {
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
}
