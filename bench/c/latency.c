/* The C twin of gompi-bench latency: ping-pong between ranks 0 and 1,
 * one-way latency (half the round trip) in microseconds. Same flags,
 * defaults and output as gompi-bench (see bench.h).
 *
 *   mpirun -np 2 ./latency -m 0:4194304 -i 1000 -x 100
 */
#include "bench.h"

static const struct measurement latency = {
    .name = "latency",
    .unit = "us",
    .about = "one-way latency, half the round trip between ranks 0 and 1",
    .column = "Latency (us)",
    .min_size = 0,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) { return bytes_main(&latency, 2, ping_pong, argc, argv); }
