package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// calls records what a keyval's callbacks did.
type calls struct {
	copies  []any // the values copied
	deletes []any // the values deleted
	// refuseDelete makes the delete callback fail; failCopy the copy.
	refuseDelete, failCopy bool
	// freed says the keyval was freed: the callbacks can no longer name it.
	freed bool
}

var errRefused = errors.New("the callback refuses")

func (c *calls) keyval() (mpi.Keyval, error) {
	return mpi.CommCreateKeyval(
		func(old mpi.Comm, kv mpi.Keyval, v, extra any) (any, bool, error) {
			if extra != c {
				return nil, false, fmt.Errorf("copy callback got extra %v", extra)
			}
			// A callback may call MPI on the communicator it is given.
			if got, ok, err := old.Attr(kv); !c.freed && (err != nil || !ok || got != v) {
				return nil, false, fmt.Errorf("copy callback: old.Attr = %v, %v, %v; want %v", got, ok, err, v)
			}
			if c.failCopy {
				return nil, false, errRefused
			}
			c.copies = append(c.copies, v)
			return v, true, nil
		},
		func(comm mpi.Comm, kv mpi.Keyval, v, extra any) error {
			if got, ok, err := comm.Attr(kv); !c.freed && (err != nil || ok) {
				return fmt.Errorf("delete callback: the value is still readable (%v, %v, %v)", got, ok, err)
			}
			if c.refuseDelete {
				return errRefused
			}
			c.deletes = append(c.deletes, v)
			return nil
		}, c)
}

func (c *calls) want(what string, copies, deletes []any) error {
	if !slices.Equal(c.copies, copies) || !slices.Equal(c.deletes, deletes) {
		return fmt.Errorf("%s: copied %v and deleted %v, want %v and %v", what, c.copies, c.deletes, copies, deletes)
	}
	return nil
}

// commAttrs checks the callbacks' calls on Dup, Free, SetAttr and
// DeleteAttr, a declined and a failing copy, a failing delete, and a
// keyval freed while attributes use it.
func commAttrs(world mpi.Comm, _ []string) error {
	for _, f := range []func(mpi.Comm) error{dupAndFree, declinedCopy, failingCopy, failingDelete, freedKeyval, interDup, finalizeHooks} {
		if err := f(world); err != nil {
			return err
		}
	}
	return nil
}

func dupAndFree(world mpi.Comm) error {
	var c calls
	kv, err := c.keyval()
	if err != nil {
		return err
	}
	if err := world.SetAttr(kv, 7); err != nil {
		return err
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	if err := errors.Join(wantAttr("dup", d, kv, 7, true), c.want("dup", []any{7}, nil)); err != nil {
		return err
	}
	if err := d.SetAttr(kv, 8); err != nil { // overwriting deletes 7 on d
		return err
	}
	if err := errors.Join(wantAttr("overwritten", d, kv, 8, true), wantAttr("world", world, kv, 7, true),
		c.want("overwrite", []any{7}, []any{7})); err != nil {
		return err
	}
	if err := d.Free(); err != nil {
		return err
	}
	if err := world.DeleteAttr(kv); err != nil {
		return err
	}
	if err := c.want("free and delete", []any{7}, []any{7, 8, 7}); err != nil {
		return err
	}
	if err := wantErr("deleting again", world.DeleteAttr(kv), mpi.ErrArg, "no attribute is set"); err != nil {
		return err
	}
	return errors.Join(wantAttr("deleted", world, kv, nil, false), mpi.CommFreeKeyval(&kv))
}

// declinedCopy: the null copy function leaves the new communicator
// without the attribute; CommDupFn copies it as it is.
func declinedCopy(world mpi.Comm) error {
	none, err := mpi.CommCreateKeyval(mpi.CommNullCopyFn, mpi.CommNullDeleteFn, nil)
	if err != nil {
		return err
	}
	same, err := mpi.CommCreateKeyval(mpi.CommDupFn, nil, nil)
	if err != nil {
		return err
	}
	value := &struct{ n int }{5}
	if err := errors.Join(world.SetAttr(none, 1), world.SetAttr(same, value)); err != nil {
		return err
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	if err := errors.Join(wantAttr("declined", d, none, nil, false), wantAttr("dup fn", d, same, value, true)); err != nil {
		return err
	}
	return errors.Join(d.Free(), world.DeleteAttr(none), world.DeleteAttr(same),
		mpi.CommFreeKeyval(&none), mpi.CommFreeKeyval(&same))
}

// goodAndFailing sets on world an attribute "g" under a keyval whose
// callbacks record in good, and "b" under one whose copy callback fails.
func goodAndFailing(world mpi.Comm, good, bad *calls) (kvGood, kvBad mpi.Keyval, err error) {
	if kvGood, err = good.keyval(); err != nil {
		return kvGood, kvBad, err
	}
	if kvBad, err = bad.keyval(); err != nil {
		return kvGood, kvBad, err
	}
	bad.failCopy = true
	return kvGood, kvBad, errors.Join(world.SetAttr(kvGood, "g"), world.SetAttr(kvBad, "b"))
}

// failingCopy: a copy callback's error fails the Dup, and the attributes
// already copied to the new communicator are deleted.
func failingCopy(world mpi.Comm) error {
	var good, bad calls
	kvGood, kvBad, err := goodAndFailing(world, &good, &bad)
	if err != nil {
		return err
	}
	d, err := world.Dup()
	if !errors.Is(err, errRefused) || !d.IsNull() {
		return fmt.Errorf("dup with a failing copy callback: got %v, %v; want the callback's error and no communicator", d, err)
	}
	if err := wantErr("failed dup", err, mpi.ErrOther, "copy callback of keyval"); err != nil {
		return err
	}
	if err := good.want("failed dup", []any{"g"}, []any{"g"}); err != nil {
		return err
	}
	// world is unharmed: its attributes and its traffic.
	if err := errors.Join(wantAttr("after failed dup", world, kvGood, "g", true), mpi.Barrier(world)); err != nil {
		return err
	}
	bad.failCopy = false
	d, err = world.Dup()
	if err != nil {
		return err
	}
	return errors.Join(mpi.Barrier(d), d.Free(), world.DeleteAttr(kvGood), world.DeleteAttr(kvBad),
		mpi.CommFreeKeyval(&kvGood), mpi.CommFreeKeyval(&kvBad))
}

// failingDelete: a delete callback's error fails Free, SetAttr and
// DeleteAttr, and leaves the value, and the communicator, in place.
func failingDelete(world mpi.Comm) error {
	var c calls
	kv, err := c.keyval()
	if err != nil {
		return err
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	if err := d.SetAttr(kv, 1); err != nil {
		return err
	}
	c.refuseDelete = true
	if err := wantErr("free", d.Free(), mpi.ErrOther, "delete callback of keyval"); err != nil {
		return err
	}
	if err := wantErr("overwrite", d.SetAttr(kv, 2), mpi.ErrOther, "delete callback"); err != nil {
		return err
	}
	if err := wantErr("delete", d.DeleteAttr(kv), mpi.ErrOther, "delete callback"); err != nil {
		return err
	}
	if d.IsNull() {
		return errors.New("a Free that failed set the communicator to null")
	}
	if err := errors.Join(wantAttr("kept", d, kv, 1, true), mpi.Barrier(d)); err != nil {
		return err
	}
	c.refuseDelete = false
	if err := d.Free(); err != nil {
		return err
	}
	return errors.Join(c.want("free at last", nil, []any{1}), mpi.CommFreeKeyval(&kv))
}

// freedKeyval: a keyval freed while attributes use it can no longer be
// named, but their callbacks still run until the last goes.
func freedKeyval(world mpi.Comm) error {
	var c calls
	kv, err := c.keyval()
	if err != nil {
		return err
	}
	base, err := world.Dup()
	if err != nil {
		return err
	}
	if err := base.SetAttr(kv, "v"); err != nil {
		return err
	}
	held := kv
	if err := mpi.CommFreeKeyval(&kv); err != nil {
		return err
	}
	c.freed = true
	if kv != (mpi.Keyval{}) {
		return fmt.Errorf("CommFreeKeyval left %v, want the invalid keyval", kv)
	}
	// The attribute still holds the keyval: a copy of it gets the value
	// and sets none.
	if v, ok, err := base.Attr(held); err != nil || !ok || v != "v" {
		return fmt.Errorf("the value under a freed keyval: %v, %v, %v; want v", v, ok, err)
	}
	if err := wantErr("freed keyval", base.SetAttr(held, "w"), mpi.ErrKeyval, "was freed"); err != nil {
		return err
	}
	if err := wantErr("freeing again", mpi.CommFreeKeyval(&held), mpi.ErrKeyval, "was freed"); err != nil {
		return err
	}
	d, err := base.Dup()
	if err != nil {
		return err
	}
	if err := errors.Join(d.Free(), base.Free()); err != nil {
		return err
	}
	return c.want("freed keyval", []any{"v"}, []any{"v", "v"})
}

// interDup: an intercommunicator's Dup copies its attributes, and its
// Free deletes them, as an intracommunicator's.
func interDup(world mpi.Comm) error {
	color := world.Rank() % 2
	half, err := world.Split(color, 0)
	if err != nil {
		return err
	}
	inter, err := mpi.IntercommCreate(half, 0, world, 1-color, 9)
	if err != nil {
		return err
	}
	var c calls
	kv, err := c.keyval()
	if err != nil {
		return err
	}
	if err := inter.SetAttr(kv, "i"); err != nil {
		return err
	}
	d, err := inter.Dup()
	if err != nil {
		return err
	}
	if err := errors.Join(wantAttr("inter dup", d, kv, "i", true), d.Free(), inter.Free(), half.Free()); err != nil {
		return err
	}
	return errors.Join(c.want("inter", []any{"i"}, []any{"i", "i"}), mpi.CommFreeKeyval(&kv))
}

func errOf(_ any, _ bool, err error) error { return err }

// commErrors: bad communicators, keyvals and predefined attributes are
// refused, each with an error naming what was wrong.
func commErrors(world mpi.Comm, _ []string) error {
	kv, err := mpi.CommCreateKeyval(nil, nil, nil)
	if err != nil {
		return err
	}
	tkv, err := mpi.TypeCreateKeyval(nil, nil, nil)
	if err != nil {
		return err
	}
	var null mpi.Comm
	invalid := mpi.Keyval{}
	tagUB := mpi.AttrTagUB
	for _, tc := range []struct {
		what   string
		err    error
		target error
		says   string
	}{
		{"null comm", null.SetAttr(kv, 1), mpi.ErrComm, "communicator is nil"},
		{"invalid keyval", world.SetAttr(invalid, 1), mpi.ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"type keyval", world.SetAttr(tkv, 1), mpi.ErrKeyval, "is a datatype keyval (want a communicator one)"},
		{"comm keyval on a type", mpi.TypeSetAttr(mpi.LayoutOf[int32]().Datatype(), kv, 1), mpi.ErrKeyval, "is a communicator keyval"},
		{"set predefined", world.SetAttr(mpi.AttrTagUB, 1), mpi.ErrKeyval, "MPI_TAG_UB is predefined"},
		{"delete predefined", world.DeleteAttr(mpi.AttrAppNum), mpi.ErrKeyval, "MPI_APPNUM is predefined"},
		{"free predefined", mpi.CommFreeKeyval(&tagUB), mpi.ErrKeyval, "MPI_TAG_UB is predefined"},
		{"free a type keyval as a comm one", mpi.CommFreeKeyval(&tkv), mpi.ErrKeyval, "is a datatype keyval"},
		{"get on null", errOf(null.Attr(kv)), mpi.ErrComm, "communicator is nil"},
	} {
		if err := wantErr(tc.what, tc.err, tc.target, tc.says); err != nil {
			return err
		}
	}
	return errors.Join(mpi.CommFreeKeyval(&kv), mpi.TypeFreeKeyval(&tkv))
}

// finalizeHooks sets two attributes on CommSelf whose delete callbacks
// print "finalize hook N rank R" and make an MPI call: Finalize runs them,
// the last set first, while MPI still runs (the test checks the order).
func finalizeHooks(world mpi.Comm) error {
	for n := 1; n <= 2; n++ {
		kv, err := mpi.CommCreateKeyval(nil, func(mpi.Comm, mpi.Keyval, any, any) error {
			fmt.Printf("finalize hook %d rank %d\n", n, world.Rank())
			return nil
		}, nil)
		if err != nil {
			return err
		}
		if err := mpi.CommSelf().SetAttr(kv, n); err != nil {
			return err
		}
	}
	return nil
}
