package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// typeAttrs checks datatype attributes: copied by Dup (declined and
// failing copies too), deleted by Free (a failing delete keeps the type
// usable), on a predefined type; and that a Dup has the type map of
// its original, by sending with one and receiving with the other.
func typeAttrs(world mpi.Comm, _ []string) error {
	var copies, deletes []any
	refuse, failCopy := false, false
	kv, err := mpi.TypeCreateKeyval(
		func(old mpi.Datatype, kv mpi.Keyval, v, _ any) (any, bool, error) {
			if failCopy {
				return nil, false, errRefused
			}
			copies = append(copies, v)
			return v, true, nil
		},
		func(dt mpi.Datatype, kv mpi.Keyval, v, _ any) error {
			if refuse {
				return errRefused
			}
			deletes = append(deletes, v)
			return nil
		}, nil)
	if err != nil {
		return err
	}
	none, err := mpi.TypeCreateKeyval(mpi.TypeNullCopyFn, mpi.TypeNullDeleteFn, nil)
	if err != nil {
		return err
	}
	same, err := mpi.TypeCreateKeyval(mpi.TypeDupFn, nil, nil)
	if err != nil {
		return err
	}
	check := func(what string, wantCopies, wantDeletes []any) error {
		if !slices.Equal(copies, wantCopies) || !slices.Equal(deletes, wantDeletes) {
			return fmt.Errorf("%s: copied %v and deleted %v, want %v and %v", what, copies, deletes, wantCopies, wantDeletes)
		}
		return nil
	}

	vec, err := mpi.Vector[int32](3, 1, 2)
	if err != nil {
		return err
	}
	dt := vec.Datatype()
	if err := errors.Join(mpi.TypeSetAttr(dt, kv, "a"), mpi.TypeSetAttr(dt, none, 1), mpi.TypeSetAttr(dt, same, 2)); err != nil {
		return err
	}
	dup, err := vec.Dup()
	if err != nil {
		return err
	}
	for _, tc := range []struct {
		kv   mpi.Keyval
		want any
		ok   bool
	}{{kv, "a", true}, {none, nil, false}, {same, 2, true}} {
		if v, ok, err := mpi.TypeGetAttr(dup.Datatype(), tc.kv); v != tc.want || ok != tc.ok || err != nil {
			return fmt.Errorf("dup's %v: %v, %v, %v; want %v, %v", tc.kv, v, ok, err, tc.want, tc.ok)
		}
	}
	if err := check("dup", []any{"a"}, nil); err != nil {
		return err
	}
	if lb, ext := dup.Extent(); dup.Size() != vec.Size() || lb != 0 || ext != 5*4 {
		return fmt.Errorf("dup: size %d, lb %d, extent %d; want %d, 0, 20", dup.Size(), lb, ext, vec.Size())
	}
	// The same type map: what one sends with the vector, the other
	// receives with the dup, in the same places.
	peer := (world.Rank() + 1) % world.Size()
	from := (world.Rank() + world.Size() - 1) % world.Size()
	out := []int32{1, -1, 2, -1, 3}
	in := []int32{0, 9, 0, 9, 0}
	r, err := mpi.IsendLayout(out, 1, vec, peer, 3, world)
	if err != nil {
		return err
	}
	if _, err := mpi.RecvLayout(in, 1, dup, from, 3, world); err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	if !slices.Equal(in, []int32{1, 9, 2, 9, 3}) {
		return fmt.Errorf("received %v through the dup, want [1 9 2 9 3]", in)
	}

	// A failing copy fails the Dup and deletes what it copied.
	failCopy = true
	if _, err := mpi.TypeDup(dt); !errors.Is(err, errRefused) {
		return fmt.Errorf("type dup with a failing copy callback: %v, want the callback's error", err)
	}
	failCopy = false

	// A failing delete keeps the type and its value.
	refuse = true
	if err := wantErr("free", dup.Free(), mpi.ErrOther, "delete callback of keyval"); err != nil {
		return err
	}
	if v, ok, err := mpi.TypeGetAttr(dup.Datatype(), kv); v != "a" || !ok || err != nil {
		return fmt.Errorf("after a failed free: %v, %v, %v; want a", v, ok, err)
	}
	if _, err := mpi.PackSize(1, dup); err != nil {
		return fmt.Errorf("the type is unusable after a failed free: %v", err)
	}
	refuse = false
	if err := errors.Join(dup.Free(), mpi.TypeDeleteAttr(dt, kv), vec.Free()); err != nil {
		return err
	}
	if err := check("free", []any{"a"}, []any{"a", "a"}); err != nil {
		return err
	}
	if err := wantErr("freed type", mpi.TypeSetAttr(dt, kv, 1), mpi.ErrType, "was freed"); err != nil {
		return err
	}

	// A predefined type takes attributes, and its Dup is a derived type
	// of one element, with them.
	i32 := mpi.LayoutOf[int32]().Datatype()
	if err := mpi.TypeSetAttr(i32, kv, "p"); err != nil {
		return err
	}
	pd, err := mpi.TypeDup(i32)
	if err != nil {
		return err
	}
	if v, ok, err := mpi.TypeGetAttr(pd, kv); v != "p" || !ok || err != nil || pd.Size() != 4 {
		return fmt.Errorf("dup of a predefined type: %v, %v, %v, size %d; want p and 4", v, ok, err, pd.Size())
	}
	if err := errors.Join(mpi.TypeFree(pd), mpi.TypeDeleteAttr(i32, kv)); err != nil {
		return err
	}
	if err := check("predefined", []any{"a", "p"}, []any{"a", "a", "p", "p"}); err != nil {
		return err
	}
	held := kv
	if err := errors.Join(mpi.TypeFreeKeyval(&kv), mpi.TypeFreeKeyval(&none), mpi.TypeFreeKeyval(&same)); err != nil {
		return err
	}
	return wantErr("freed type keyval", mpi.TypeSetAttr(i32, held, 1), mpi.ErrKeyval, "was freed")
}
