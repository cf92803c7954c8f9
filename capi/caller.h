/* Where the program called gompi, for the state report: the weak MPI_
 * entry points keep their return address for the call's duration, in the
 * calling thread's slot (a profiling tool between the program and PMPI_
 * leaves it empty). Initial-exec TLS costs a store, as the Go runtime's
 * own TLS in this library does. */
#ifndef GOMPI_CALLER_H
#define GOMPI_CALLER_H

extern __thread void *gompi_caller __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* gompi_forked is set in a child that fork() made, where Go's runtime
 * has lost its threads: gompi_forked_call ends it, naming the call (fork.c). */
extern int gompi_forked __attribute__((visibility("hidden")));
void gompi_forked_call(const char *fn) __attribute__((visibility("hidden")));

/* GOMPI_CALL returns call, of type T, made with the caller recorded; an
 * MPI call made from a callback inside another restores the outer one's. */
#define GOMPI_CALL(T, call)                                                                        \
    do {                                                                                           \
        if (__builtin_expect(gompi_forked, 0))                                                     \
            gompi_forked_call(__func__);                                                           \
        void *gompi_outer_ = gompi_caller;                                                         \
        gompi_caller = __builtin_return_address(0);                                                \
        T gompi_r_ = call;                                                                         \
        gompi_caller = gompi_outer_;                                                               \
        return gompi_r_;                                                                           \
    } while (0)

#endif
