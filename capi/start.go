package main

// typedef int (*gompi_main_fn)(int, char **, char **);
// static int gompi_call_main(gompi_main_fn f, int argc, char **argv, char **envp) { return f(argc, argv, envp); }
import "C"

// gompi_run_main runs a program's main, for start/start.c: the program's
// MPI calls from its main thread are then callbacks within this call, which
// Go's runtime enters faster than callbacks from a thread with no Go below
// them. The program's exit status is main's.
//
//export gompi_run_main
func gompi_run_main(f C.gompi_main_fn, argc C.int, argv, envp **C.char) C.int {
	return C.gompi_call_main(f, argc, argv, envp)
}
