package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// reorder checks where CartCreate with reorder places the ranks of a
// job spread over several hosts, each host with whole rows of the grid:
// host by host (hosts in the order of their lowest rank, ranks within
// a host by rank), row-major, so that every rank's neighbours along a
// row share its host; without reorder the grid takes the world's order.
func reorder(world mpi.Comm) (err error) {
	hosts, err := hostnames(world)
	if err != nil {
		return err
	}
	var order []int // world ranks, host by host
	for _, h := range uniq(hosts) {
		for r, rh := range hosts {
			if rh == h {
				order = append(order, r)
			}
		}
	}
	dims, err := grid2(world)
	if err != nil {
		return err
	}
	for _, h := range uniq(hosts) {
		if n := count(hosts, h); n%dims[1] != 0 {
			return fmt.Errorf("setup: host %s has %d ranks, not whole rows of %d (hosts %q)", h, n, dims[1], hosts)
		}
	}
	periods := []bool{false, true}
	want := slices.Index(order, world.Rank())
	if m, err := world.CartMap(dims, periods); err != nil || m != want {
		return fmt.Errorf("CartMap = %d, %v; want %d", m, err, want)
	}
	c, err := mpi.CartCreate(world, dims, periods, true)
	if err != nil {
		return err
	}
	defer free(c, &err)
	if c.Rank() != want {
		return fmt.Errorf("rank %d in the reordered grid; want %d (hosts %q)", c.Rank(), want, hosts)
	}
	if co, err := c.CartCoords(c.Rank()); err != nil || !slices.Equal(co, rowMajor(dims, want)) {
		return fmt.Errorf("CartCoords(%d) = %v, %v; want %v", c.Rank(), co, err, rowMajor(dims, want))
	}
	// Along a row, both neighbours are on this host.
	me := []byte(hosts[world.Rank()])
	for _, disp := range []int{1, -1} {
		src, dst, err := c.CartShift(1, disp)
		if err != nil {
			return err
		}
		got := make([]byte, hostLen)
		if _, err := mpi.Sendrecv(padded(me), dst, 0, got, src, 0, c); err != nil {
			return err
		}
		if got := bytes.TrimRight(got, "\x00"); !bytes.Equal(got, me) {
			return fmt.Errorf("the row neighbour by %d (rank %d) is on %s, not on this host %s", -disp, src, got, me)
		}
	}
	plain, err := mpi.CartCreate(world, dims, periods, false)
	if err != nil {
		return err
	}
	defer free(plain, &err)
	if plain.Rank() != world.Rank() {
		return fmt.Errorf("rank %d without reorder; want the world's %d", plain.Rank(), world.Rank())
	}
	return nil
}

const hostLen = 64

func padded(b []byte) []byte {
	p := make([]byte, hostLen)
	copy(p, b)
	return p
}

// hostnames returns the host of every world rank, gathered.
func hostnames(world mpi.Comm) ([]string, error) {
	h, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	all := make([]byte, hostLen*world.Size())
	if err := mpi.Allgather(padded([]byte(h)), all, world); err != nil {
		return nil, err
	}
	hosts := make([]string, world.Size())
	for r := range hosts {
		hosts[r] = string(bytes.TrimRight(all[r*hostLen:(r+1)*hostLen], "\x00"))
	}
	return hosts, nil
}

// uniq returns the distinct entries of s in the order they first appear.
func uniq(s []string) []string {
	var u []string
	for _, x := range s {
		if !slices.Contains(u, x) {
			u = append(u, x)
		}
	}
	return u
}

func count(s []string, x string) int {
	n := 0
	for _, y := range s {
		if y == x {
			n++
		}
	}
	return n
}
