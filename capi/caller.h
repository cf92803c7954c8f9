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

/* gompi_nested is set while a call runs that was made on a thread already
 * inside one, which only a signal handler does (the library's calls to
 * the program's callbacks empty the caller slot): Go cannot be entered
 * then, and only what C answers may run (signal.c). */
extern __thread int gompi_nested __attribute__((tls_model("initial-exec"), visibility("hidden")));
int gompi_unusual_call(const char *fn) __attribute__((visibility("hidden")));
void gompi_nested_call(const char *fn) __attribute__((visibility("hidden"), noreturn));
void gompi_say(const char *s) __attribute__((visibility("hidden")));

/* GOMPI_CALL returns call, of type T, made with the caller recorded; in a
 * forked child or a nested call, after gompi_unusual_call, which ends the
 * process unless C answers the call. */
#define GOMPI_CALL(T, call)                                                                        \
    do {                                                                                           \
        void *gompi_outer_ = gompi_caller;                                                         \
        if (__builtin_expect(gompi_forked | (gompi_outer_ != 0), 0)) {                             \
            int gompi_was_ = gompi_unusual_call(__func__);                                         \
            T gompi_r_ = call;                                                                     \
            gompi_nested = gompi_was_;                                                             \
            return gompi_r_;                                                                       \
        }                                                                                          \
        gompi_caller = __builtin_return_address(0);                                                \
        T gompi_r_ = call;                                                                         \
        gompi_caller = gompi_outer_;                                                               \
        return gompi_r_;                                                                           \
    } while (0)

/* GOMPI_CALLBACK calls the program's callback, a void expression, with
 * the caller slot empty: an MPI call the callback makes is no nested one. */
#define GOMPI_CALLBACK(call)                                                                       \
    do {                                                                                           \
        void *gompi_outer_ = gompi_caller;                                                         \
        gompi_caller = 0;                                                                          \
        call;                                                                                      \
        gompi_caller = gompi_outer_;                                                               \
    } while (0)

#endif
