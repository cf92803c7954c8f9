package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gompi/gompi/mpi"
)

// predefined checks the predefined attributes' values on world and on a
// duplicate; args[0] is the app context the rank expects.
func predefined(world mpi.Comm, args []string) error {
	app := 0
	if len(args) > 0 {
		var err error
		if app, err = strconv.Atoi(args[0]); err != nil {
			return err
		}
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	for _, c := range []mpi.Comm{world, d} {
		for _, tc := range []struct {
			kv   mpi.Keyval
			want any
		}{
			{mpi.AttrTagUB, mpi.TagUB},
			{mpi.AttrHost, mpi.ProcNull},
			{mpi.AttrIO, mpi.AnySource},
			{mpi.AttrWtimeIsGlobal, false},
			{mpi.AttrAppNum, app},
			{mpi.AttrUniverseSize, world.Size()},
		} {
			if err := wantAttr(fmt.Sprintf("%v on %v", tc.kv, c), c, tc.kv, tc.want, true); err != nil {
				return err
			}
		}
	}
	if mpi.AppNum() != app {
		return fmt.Errorf("AppNum() = %d, want %d", mpi.AppNum(), app)
	}
	// MPI_TAG_UB is the largest tag a send takes: one more is refused.
	v, _, _ := world.Attr(mpi.AttrTagUB)
	ub := v.(int)
	me := world.Rank()
	buf := []int32{int32(me)}
	if err := wantErr("tag above MPI_TAG_UB", mpi.Send(buf, me, ub+1, world), mpi.ErrTag, "out of range"); err != nil {
		return err
	}
	r, err := mpi.Isend(buf, me, ub, world)
	if err != nil {
		return err
	}
	got := make([]int32, 1)
	if _, err := mpi.Recv(got, me, ub, world); err != nil || got[0] != int32(me) {
		return fmt.Errorf("recv with tag MPI_TAG_UB: %v, %v", got, err)
	}
	_, err = r.Wait()
	return errors.Join(err, d.Free())
}
