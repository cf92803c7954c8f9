// Package pmi is the client side of the PMI wire protocols that existing
// launchers serve, so that a gompi program can run under them without
// gompirun: MPICH's Hydra (mpiexec.mpich) and Slurm's pmi2 plugin
// (srun --mpi=pmi2).
//
// Two protocols are spoken, both over a socket the launcher hands over,
// either inherited (PMI_FD) or to connect to (PMI_PORT=host:port with
// PMI_ID):
//
//   - PMI-1, MPICH's "simple" protocol: one line per message,
//     "cmd=NAME key=value ...\n". Values may not hold spaces, '=' or
//     newlines, and the server limits key and value lengths (get_maxes).
//   - PMI-2: each message is a 6-character decimal length followed by
//     "cmd=NAME;key=value;...;". It starts with a PMI-1 style init line
//     that asks for version 2.
//
// Open picks PMI-2 when the environment is Slurm's pmi2 plugin's (it sets
// PMI_JOBID) and PMI-1 otherwise; Hydra serves both.
//
// Values put through Client.Put are bytes: they are base64url-encoded and,
// when longer than the server's value limit, split over several keys
// (KEY, KEY.1, KEY.2, ...), so any value survives either protocol. Keys
// are therefore limited to letters, digits, '_' and '-'.
package pmi
