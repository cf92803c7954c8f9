package hostmap_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gompi/gompi/internal/hostmap"
)

// gompirun --hostfile hosts -np 5 --map-by node --display-map
func Example() {
	hostfile := "h1 slots=2\nh2 slots=2 max_slots=4 # the small one\nh3 slots=2\n"
	hosts, err := hostmap.ParseHostfile("hosts", strings.NewReader(hostfile))
	if err != nil {
		fmt.Println(err)
		return
	}
	mapBy, err := hostmap.ParseMapBy("node")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := hostmap.Place(hosts, hostmap.Options{NP: []int{5}, MapBy: mapBy})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := hostmap.WriteMap(os.Stdout, m, nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// job map: 5 ranks on 3 of 3 hosts, map-by node, rank-by node
	// host  slots  max_slots  procs  ranks
	// h1    2      -          2      0,3
	// h2    2      4          2      1,4
	// h3    2      -          1      2
	//
	// rank  host  local_rank  local_size  binding
	// 0     h1    0           2           -
	// 1     h2    0           2           -
	// 2     h3    0           1           -
	// 3     h1    1           2           -
	// 4     h2    1           2           -
}

// Inside a Slurm allocation: srun -N3 -n5 sets these.
func ExampleSlurmHosts() {
	hosts, err := hostmap.SlurmHosts("node[01-03]", "2(x2),1")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hosts {
		fmt.Println(h.Name, h.Slots)
	}
	// Output:
	// node01 2
	// node02 2
	// node03 1
}

// The error mpirun users know as "not enough slots".
func ExamplePlace_notEnoughSlots() {
	hosts, _ := hostmap.ParseHosts("a,b")
	_, err := hostmap.Place(hosts, hostmap.Options{NP: []int{4}})
	fmt.Println(err)
	// Output:
	// 4 ranks do not fit the 2 slots of 2 hosts: a (1), b (1): use fewer ranks, give more slots (host:N in --host, slots=N in a hostfile), or allow more ranks than slots with --oversubscribe
}
