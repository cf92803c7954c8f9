#!/usr/bin/env bash
# Measures the effect of each optimisation step: builds gompirun and a
# measuring program as they were at each given commit, then runs every one
# and Open MPI's C twin (same flags and sizes) alternately, REPS times,
# and prints the median per size and step, with its ratio to Open MPI.
#
#   bench/steps/run.sh 4e810e2 297aea2 e092e11 dbf6f14
#   MEASURE=bw SIZES=1:64K bench/steps/run.sh 07e02cc 7832b74
#
#   MEASURE=incast NP=8 BTL=sm SIZES=1:1K ITERS=100 WARMUP=10 bench/steps/run.sh HEAD
#
# Without MEASURE it runs examples/pingpong (which every commit has)
# against bench/c/latency.c and prints one-way latency and ping-pong
# bandwidth. MEASURE=latency, sendrecv, bw, bibw, multi-lat, incast or ring runs
# gompi-bench (commits from its introduction on) against bench/c's twin
# and prints its figure. BTL=tcp (default) runs gompi with btl self,tcp
# against Open MPI's tcp; BTL=sm, gompi's sm against Open MPI's vader.
# NP (default 2) is the rank count, oversubscribed when above the CPUs.
# Needs Open MPI (mpicc, mpirun); REPS (default 5), SIZES (min:max),
# ITERS and WARMUP tune the run.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
reps=${REPS:-5} sizes=${SIZES:-0:4194304} iters=${ITERS:-1000} warmup=${WARMUP:-100}
measure=${MEASURE:-} np=${NP:-2}
prog=pingpong pkg=./examples/pingpong csrc=latency
if [ -n "$measure" ]; then
  prog=gompi-bench pkg=./bench/cmd/gompi-bench csrc=${measure//-/_}
fi
case ${BTL:-tcp} in
  tcp) gompi_btl=self,tcp ompi_btl=(--mca btl self,tcp --mca btl_tcp_if_include lo) ;;
  sm) gompi_btl=self,sm ompi_btl=(--mca btl self,vader) ;;
  *) echo "BTL=$BTL: want tcp or sm" >&2; exit 2 ;;
esac
over=()
if [ "$np" -gt "$(nproc)" ]; then
  over=(--oversubscribe)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"; git -C "$top" worktree prune' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Debian installs MPICH beside Open MPI; the suffixed commands reach Open MPI.
mpicc=$(command -v mpicc.openmpi || echo mpicc) mpirun=$(command -v mpirun.openmpi || echo mpirun)
"$mpicc" -O2 -I"$top/bench/c" -o "$work/c_prog" "$top/bench/c/$csrc.c"
for c in "$@"; do
  git -C "$top" worktree add -q --detach "$work/src-$c" "$c"
  (cd "$work/src-$c" && go build -o "$work/bin-$c/" ./cmd/gompirun "$pkg")
done
for rep in $(seq "$reps"); do
  for c in "$@"; do
    # Commits before the btl parameter ignore the variable: they had tcp only.
    GOMPI_MCA_btl=$gompi_btl "$work/bin-$c/gompirun" -np "$np" "${over[@]}" "$work/bin-$c/$prog" $measure \
      -m "$sizes" -i "$iters" -x "$warmup" > "$work/out-$c-$rep"
  done
  "$mpirun" -np "$np" "${over[@]}" "${ompi_btl[@]}" \
    "$work/c_prog" -m "$sizes" -i "$iters" -x "$warmup" > "$work/out-ompi-$rep"
done
python3 - "$work" "$reps" "$measure" "$@" <<'PY'
import statistics, sys
work, reps, measure, commits = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def load(path):
    rows = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        f = line.split()
        lat = float(f[1])  # one-way us; bandwidth follows from it, as OSU's latency test implies
        rows[int(f[0])] = (lat, int(f[0]) / lat if lat else 0.0)
    return rows
sides = commits + ['ompi']
data = {s: [load(f'{work}/out-{s}-{r}') for r in range(1, reps + 1)] for s in sides}
med = lambda s, size, i: statistics.median(run[size][i] for run in data[s])
sizes = sorted(data['ompi'][0])
tables = (('one-way latency, us', 0), ('bandwidth, MB/s', 1))
if measure:
    tables = ((measure + (', MB/s' if measure in ('bw', 'bibw') else ', us'), 0),)
for title, i in tables:
    print(f'\n{title} (median of {reps}; ratio = step / Open MPI)\n')
    print('| size | ' + ' | '.join(commits) + ' | Open MPI |')
    print('|---' * (len(sides) + 1) + '|')
    for size in sizes:
        o = med('ompi', size, i)
        cells = [f'{med(c, size, i):.1f} ({med(c, size, i) / o:.2f})' if o else f'{med(c, size, i):.1f}' for c in commits]
        print(f'| {size} | ' + ' | '.join(cells) + f' | {o:.1f} |')
PY
