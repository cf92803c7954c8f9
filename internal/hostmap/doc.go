// Package hostmap turns a job's host options into a placement of its ranks,
// the way Open MPI's mpirun reads --host, --hostfile, a Slurm allocation,
// --map-by, --rank-by, -N and --oversubscribe. It launches nothing: the
// launcher asks it where each rank goes and starts the ranks there.
//
// Hosts come from ParseHosts (--host), ParseHostfile (--hostfile) or
// SlurmHosts (SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE); Restrict
// narrows a hostfile's or Slurm's hosts to those --host names. Place maps a
// number of ranks onto them under Options; WriteMap prints the result for
// --display-map.
//
// Mapping follows Open MPI in two steps: the mapping policy decides how many
// ranks each host gets, and the ranking policy then numbers them. So
// --map-by slot --rank-by node on hosts a:2,b:2 puts two ranks on each host
// and numbers them a: 0,2 and b: 1,3. The app contexts of an MPMD job are
// mapped one after the other, each onto the slots the ones before it left,
// and numbered in that order, as Open MPI does.
package hostmap
