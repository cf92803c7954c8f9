/* A fault in the program's C code ends the process as it ends a C program
 * (killed by the signal, with a core dump where the limits allow), not
 * with a Go crash report. Go's runtime, which starts after this
 * constructor (a priority runs before the unprioritised ones), keeps the
 * handlers it finds and passes them the faults of code that is not Go:
 * code called from Go, such as a program's main that gompicc's start
 * archive runs (start/start.c), or a user's reduction operation. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stddef.h>

static void fault(int sig) {
    signal(sig, SIG_DFL); /* the faulting instruction runs again, and the default action ends the process */
}

__attribute__((constructor(101))) static void gompi_fault_handlers(void) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            signal(sigs[i], fault);
    }
}
