package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// info checks an Info's calls and a communicator's hints: set, read
// back, carried by Dup, bad values refused.
func info(world mpi.Comm, _ []string) error {
	in := mpi.InfoCreate()
	for _, kv := range [][2]string{{"mpi_assert_no_any_tag", "true"}, {"user_key", "x"}, {"mpi_assert_exact_length", "false"}, {"user_key", "y"}} {
		if err := in.Set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	if n, err := in.NKeys(); n != 3 || err != nil {
		return fmt.Errorf("NKeys = %d, %v; want 3", n, err)
	}
	if k, err := in.NthKey(1); k != "user_key" || err != nil {
		return fmt.Errorf("NthKey(1) = %q, %v; want user_key", k, err)
	}
	if v, ok, err := in.Get("user_key"); v != "y" || !ok || err != nil {
		return fmt.Errorf("Get(user_key) = %q, %v, %v; want y", v, ok, err)
	}
	dup, err := in.Dup()
	if err != nil {
		return err
	}
	if err := in.Delete("user_key"); err != nil {
		return err
	}
	if v, ok, err := dup.Get("user_key"); v != "y" || !ok || err != nil {
		return fmt.Errorf("the dup's Get(user_key) = %q, %v, %v; want y", v, ok, err)
	}
	for _, tc := range []struct {
		what   string
		err    error
		target error
		says   string
	}{
		{"delete absent", in.Delete("user_key"), mpi.ErrInfoNokey, `key "user_key" is not set`},
		{"empty key", in.Set("", "v"), mpi.ErrInfoKey, "want 1 to 255"},
		{"long value", in.Set("k", strings.Repeat("v", mpi.MaxInfoVal+1)), mpi.ErrInfoValue, "want 1 to 1024"},
		{"long key on get", errOf3(in.Get(strings.Repeat("k", mpi.MaxInfoKey+1))), mpi.ErrInfoKey, "has 256 bytes (want 1 to 255)"},
		{"nthkey out of range", errOf2(in.NthKey(5)), mpi.ErrArg, "out of range"},
		{"nil info", world.SetInfo(nil), mpi.ErrArg, "MPI_INFO_NULL"},
	} {
		if err := wantErr(tc.what, tc.err, tc.target, tc.says); err != nil {
			return err
		}
	}

	if err := world.SetInfo(in); err != nil {
		return err
	}
	d, err := world.Dup()
	if err != nil {
		return err
	}
	want := map[string]string{"mpi_assert_no_any_source": "false", "mpi_assert_no_any_tag": "true",
		"mpi_assert_exact_length": "false", "mpi_assert_allow_overtaking": "false"}
	for _, c := range []mpi.Comm{world, d} {
		if err := wantHints(c, want); err != nil {
			return err
		}
	}
	// A later SetInfo changes the keys it names and keeps the others.
	more := mpi.InfoCreate()
	if err := more.Set("mpi_assert_allow_overtaking", "true"); err != nil {
		return err
	}
	if err := d.SetInfo(more); err != nil {
		return err
	}
	want["mpi_assert_allow_overtaking"] = "true"
	if err := wantHints(d, want); err != nil {
		return err
	}
	if err := more.Set("mpi_assert_no_any_source", "yes"); err != nil {
		return err
	}
	if err := wantErr("bad hint value", d.SetInfo(more), mpi.ErrArg, `mpi_assert_no_any_source="yes" (want true or false)`); err != nil {
		return err
	}
	if err := wantHints(d, want); err != nil {
		return err
	}
	if err := errors.Join(in.Free(), dup.Free(), more.Free(), d.Free()); err != nil {
		return err
	}
	return wantErr("freed info", in.Set("k", "v"), mpi.ErrArg, "the info was freed")
}

func wantHints(c mpi.Comm, want map[string]string) error {
	got, err := c.Info()
	if err != nil {
		return err
	}
	defer got.Free()
	n, err := got.NKeys()
	if err != nil || n != len(want) {
		return fmt.Errorf("%v: Info has %d keys (%v), want %d", c, n, err, len(want))
	}
	for k, w := range want {
		if v, ok, err := got.Get(k); v != w || !ok || err != nil {
			return fmt.Errorf("%v: hint %s = %q, %v, %v; want %q", c, k, v, ok, err, w)
		}
	}
	return nil
}

func errOf2(_ string, err error) error { return err }

func errOf3(_ string, _ bool, err error) error { return err }
