/* The gate lets MPI_Test and its kin, and MPI_Iprobe, answer "not yet"
 * without entering Go, which costs more than the test itself: Go arms it
 * after a failed test or probe when nothing but a peer's next fragment
 * can complete a request or bring a message
 * (a change to one of the words it names) or the library's own goroutines,
 * which clear armed. Any other call into the library clears it too. */
#ifndef GOMPI_GATE_H
#define GOMPI_GATE_H

#include <stdint.h>

#define GOMPI_GATE_WORDS 64
#define GOMPI_GATE_REQS 8

struct gompi_gate {
    uint32_t armed; /* atomic */
    int nwords, nreqs;
    const uint64_t *word[GOMPI_GATE_WORDS]; /* each unchanged from value */
    uint64_t value[GOMPI_GATE_WORDS];
    uintptr_t req[GOMPI_GATE_REQS]; /* requests pending when it was armed */
    int probing;                    /* a probe of these found nothing: */
    int probe_source, probe_tag;
    uintptr_t probe_comm;
    uint64_t probe_mark; /* pmpi.ProbeMark before it looked */
};

extern struct gompi_gate gompi_gate __attribute__((visibility("hidden")));

/* MPI_Comm_rank and MPI_Comm_size of MPI_COMM_WORLD and MPI_COMM_SELF,
 * answered in C as well: a program may ask them at every step, and the
 * answer never changes while the World Model runs. Go sets known once
 * MPI_Init has made the world, unless a Go profiling tool must see every
 * call, and clears it as MPI_Finalize begins. */
struct gompi_world {
    uint32_t known; /* atomic */
    int rank, size;
};

extern struct gompi_world gompi_world __attribute__((visibility("hidden")));

#endif
