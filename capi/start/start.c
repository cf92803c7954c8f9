/* Program start for programs that gompicc links: libgompi_start.a, with
 * -Wl,--wrap=main. The C runtime's call of main comes here, and main runs
 * as a C function that libmpi_abi calls (gompi_run_main, capi/start.go).
 * Each MPI call the main thread then makes is a callback from C within a
 * call from Go, which Go's runtime enters without the check it makes on a
 * thread that has no Go below it (a lock taken and released, about 15 ns
 * of a 60 ns call). Built apart from capi, whose C files go into the
 * library. */
int __real_main(int argc, char **argv, char **envp);
int gompi_run_main(int (*main)(int, char **, char **), int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp) { return gompi_run_main(__real_main, argc, argv, envp); }
