package pmpi_test

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// TestInfo: an Info keeps its keys in the order first set, Dup copies
// them apart, and bad keys, values and freed or nil Infos are refused.
func TestInfo(t *testing.T) {
	in := pmpi.InfoCreate()
	for _, kv := range [][2]string{{"b", "1"}, {"a", "2"}, {"b", "3"}} {
		if err := in.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	n, _ := in.NKeys()
	for i := range n {
		k, err := in.NthKey(i)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "b,a" {
		t.Fatalf("keys %v, want [b a]", keys)
	}
	dup, _ := in.Dup()
	if err := in.Delete("b"); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := dup.Get("b"); v != "3" || !ok {
		t.Fatalf("dup's b = %q, %v; want 3", v, ok)
	}
	if v, ok, _ := in.Get("b"); ok {
		t.Fatalf("deleted b = %q", v)
	}
	var null *pmpi.Info
	for _, tc := range []struct {
		what string
		err  error
		says string
	}{
		{"long key", in.Set(strings.Repeat("k", pmpi.MaxInfoKey+1), "v"), "has 256 bytes (want 1 to 255)"},
		{"empty value", in.Set("k", ""), `the value of key "k" has 0 bytes`},
		{"absent", in.Delete("zz"), `key "zz" is not set`},
		{"nil", null.Set("k", "v"), "MPI_INFO_NULL"},
		{"free", in.Free(), ""},
		{"freed", in.Set("k", "v"), "the info was freed"},
	} {
		if tc.says == "" {
			if tc.err != nil {
				t.Errorf("%s: %v", tc.what, tc.err)
			}
		} else if tc.err == nil || !strings.Contains(tc.err.Error(), tc.says) {
			t.Errorf("%s: got %v, want an error saying %q", tc.what, tc.err, tc.says)
		}
	}
}
