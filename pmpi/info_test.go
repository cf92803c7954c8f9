package pmpi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// TestInfo: an Info keeps its keys in the order first set, Dup copies
// them apart, and bad keys, values and freed or nil Infos are refused.
func TestInfo(t *testing.T) {
	in := pmpi.Real().InfoCreate()
	for _, kv := range [][2]string{{"b", "1"}, {"a", "2"}, {"b", "3"}} {
		if err := pmpi.Real().InfoSet(in, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	n, _ := pmpi.Real().InfoGetNkeys(in)
	for i := range n {
		k, err := pmpi.Real().InfoGetNthkey(in, i)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "b,a" {
		t.Fatalf("keys %v, want [b a]", keys)
	}
	dup, _ := pmpi.Real().InfoDup(in)
	if err := pmpi.Real().InfoDelete(in, "b"); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := pmpi.Real().InfoGet(dup, "b"); v != "3" || !ok {
		t.Fatalf("dup's b = %q, %v; want 3", v, ok)
	}
	if v, ok, _ := pmpi.Real().InfoGet(in, "b"); ok {
		t.Fatalf("deleted b = %q", v)
	}
	var null *pmpi.Info
	for _, tc := range []struct {
		what  string
		err   error
		class error
		says  string
	}{
		{"long key", pmpi.Real().InfoSet(in, strings.Repeat("k", pmpi.MaxInfoKey+1), "v"), pmpi.ErrInfoKey, "has 256 bytes (want 1 to 255)"},
		{"empty key on get", errOf(pmpi.Real().InfoGet(in, "")), pmpi.ErrInfoKey, "has 0 bytes (want 1 to 255)"},
		{"empty value", pmpi.Real().InfoSet(in, "k", ""), pmpi.ErrInfoValue, `the value of key "k" has 0 bytes`},
		{"long value", pmpi.Real().InfoSet(in, "k", strings.Repeat("v", pmpi.MaxInfoVal+1)), pmpi.ErrInfoValue, "has 1025 bytes (want 1 to 1024)"},
		{"absent", pmpi.Real().InfoDelete(in, "zz"), pmpi.ErrInfoNokey, `key "zz" is not set`},
		{"nthkey", errOf2(pmpi.Real().InfoGetNthkey(in, 3)), pmpi.ErrArg, "key 3 is out of range"},
		{"nil", pmpi.Real().InfoSet(null, "k", "v"), pmpi.ErrArg, "MPI_INFO_NULL"},
		{"free", pmpi.Real().InfoFree(in), nil, ""},
		{"freed", pmpi.Real().InfoSet(in, "k", "v"), pmpi.ErrArg, "the info was freed"},
	} {
		if tc.says == "" {
			if tc.err != nil {
				t.Errorf("%s: %v", tc.what, tc.err)
			}
		} else if !errors.Is(tc.err, tc.class) || !strings.Contains(tc.err.Error(), tc.says) {
			t.Errorf("%s: got %v, want %v saying %q", tc.what, tc.err, tc.class, tc.says)
		}
	}
}

func errOf(_ string, _ bool, err error) error { return err }

func errOf2(_ string, err error) error { return err }

// TestErrorClassNames: each class prints as MPI names it.
func TestErrorClassNames(t *testing.T) {
	for c, want := range map[pmpi.ErrorClass]string{
		pmpi.ClassKeyval: "MPI_ERR_KEYVAL", pmpi.ClassInfoKey: "MPI_ERR_INFO_KEY",
		pmpi.ClassInfoValue: "MPI_ERR_INFO_VALUE", pmpi.ClassInfoNokey: "MPI_ERR_INFO_NOKEY",
		pmpi.ClassDims: "MPI_ERR_DIMS",
	} {
		if got := c.String(); got != want {
			t.Errorf("class %d prints %q, want %q", int(c), got, want)
		}
	}
}
