#!/bin/sh
# Runs gompi-bench's measurements that the profile for profile-guided
# optimisation is taken from (make pgo): point-to-point over sm and tcp,
# a derived datatype, and the collectives, blocking and not, on 2 and 4
# ranks. Each rank writes its CPU profile to OUT/<run>.<rank>.
#
#   bench/pgo/collect.sh BIN OUT    (BIN holds gompirun and gompi-bench)
set -eu
bin=$1
out=$2
mkdir -p "$out"
run() {
	name=$1
	shift
	"$bin/gompirun" "$@" --cpuprofile "$out/$name" >/dev/null
}
sm="--mca btl self,sm"
run latency-sm -np 2 $sm "$bin/gompi-bench" latency -s 0,8,64,1K,16K,64K -i 100000 -x 1000
run latency-tcp -np 2 --mca btl self,tcp "$bin/gompi-bench" latency -s 8,1K,64K -i 20000 -x 1000
run bw-sm -np 2 $sm "$bin/gompi-bench" bw -s 8,1K,64K,1M -i 200 -x 10
run sendrecv-sm -np 2 $sm "$bin/gompi-bench" sendrecv -s 8,1K -i 100000 -x 1000
run ddt-sm -np 2 $sm "$bin/gompi-bench" ddt -s 8,1K,64K -i 20000 -x 100
for np in 2 4; do
	for c in barrier allreduce bcast reduce allgather alltoall iallreduce ibcast; do
		run "$c-$np" -np "$np" --oversubscribe $sm "$bin/gompi-bench" "$c" -i 5000 -x 100
	done
done
