package pmpi

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder's del records the values it deletes, failing for those in
// refuse.
type recorder struct {
	mu      sync.Mutex
	deleted []any
	refuse  map[any]bool
}

var errRefused = errors.New("refused")

func (r *recorder) del(e attrEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse[e.value] {
		return errRefused
	}
	r.deleted = append(r.deleted, e.value)
	return nil
}

func testKeyvals(n int) []*keyval {
	ks := make([]*keyval, n)
	for i := range ks {
		ks[i] = newKeyval(commAttr, nil).k
	}
	return ks
}

// TestAttrSetDeletes: replacing and removing run del on the value that
// goes; a failing del leaves it; removeAll goes from the last set back
// and stops at a failure.
func TestAttrSetDeletes(t *testing.T) {
	ks := testKeyvals(3)
	var s attrSet
	r := &recorder{refuse: map[any]bool{}}
	for i, k := range ks {
		if err := s.set(k, i, r.del); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.set(ks[0], 10, r.del); err != nil || !slices.Equal(r.deleted, []any{0}) {
		t.Fatalf("replace: %v, deleted %v; want 0 deleted", err, r.deleted)
	}
	r.refuse[10] = true
	if err := s.set(ks[0], 20, r.del); !errors.Is(err, errRefused) {
		t.Fatalf("replace with a failing del: %v", err)
	}
	if v, ok := s.get(ks[0]); v != 10 || !ok {
		t.Fatalf("after a failing del: %v, %v; want the old value 10", v, ok)
	}
	if had, err := s.remove(ks[0], r.del); !had || !errors.Is(err, errRefused) {
		t.Fatalf("remove with a failing del: %v, %v", had, err)
	}
	// ks[0] (10, which refuses) was set last: removeAll stops there first.
	if err := s.removeAll(r.del); !errors.Is(err, errRefused) {
		t.Fatalf("removeAll: %v", err)
	}
	if len(s.entries()) != 3 {
		t.Fatalf("removeAll deleted past its failure: %d left", len(s.entries()))
	}
	r.refuse[10] = false
	if err := s.removeAll(r.del); err != nil || !slices.Equal(r.deleted, []any{0, 10, 2, 1}) {
		t.Fatalf("removeAll: %v, deleted %v; want [0 10 2 1], the last set first", err, r.deleted)
	}
	if had, err := s.remove(ks[1], r.del); had || err != nil {
		t.Fatalf("remove of nothing: %v, %v", had, err)
	}
}

// TestAttrSetCopyFailure: a failing copy deletes what the destination
// already got, whatever its dels return, and reports every error.
func TestAttrSetCopyFailure(t *testing.T) {
	ks := testKeyvals(4)
	var src, dst attrSet
	r := &recorder{refuse: map[any]bool{1: true}}
	for i, k := range ks {
		src.put(k, i)
	}
	errCopy := errors.New("copy failed")
	err := src.copyTo(&dst, func(e attrEntry) (any, bool, error) {
		switch e.value {
		case 2:
			return nil, false, nil // declined
		case 3:
			return nil, false, errCopy
		}
		return e.value, true, nil
	}, r.del)
	if !errors.Is(err, errCopy) || !errors.Is(err, errRefused) {
		t.Fatalf("copyTo: %v; want the copy's and the refusing del's errors", err)
	}
	if len(dst.entries()) != 0 || !slices.Equal(r.deleted, []any{0}) {
		t.Fatalf("after a failed copy: %d left, deleted %v; want none left and 0 deleted (1 refused)", len(dst.entries()), r.deleted)
	}
}

// TestAttrSetRace: goroutines replacing one attribute at once delete
// every value but the last exactly once (run with -race).
func TestAttrSetRace(t *testing.T) {
	k := testKeyvals(1)[0]
	var s attrSet
	r := &recorder{}
	const n, each = 8, 200
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := s.set(k, g*each+i, r.del); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	last, _ := s.get(k)
	got := append(r.deleted, last)
	slices.SortFunc(got, func(a, b any) int { return a.(int) - b.(int) })
	for i, v := range got {
		if v != i {
			t.Fatalf("values deleted or left: %v...; want each of 0 to %d once", got[:min(len(got), i+2)], n*each-1)
		}
	}
}

// TestKeyvalChecks: an invalid, freed, predefined or wrong-kind keyval
// is refused with MPI_ERR_KEYVAL, naming what is wrong.
func TestKeyvalChecks(t *testing.T) {
	kv, _ := theAPI.CommCreateKeyval(nil, nil, nil)
	tkv, _ := theAPI.TypeCreateKeyval(nil, nil, nil)
	held := kv
	tagUB := AttrTagUB
	for _, tc := range []struct {
		what  string
		err   error
		class *Error
		says  string
	}{
		{"invalid", theAPI.CommSetAttr(nil, Keyval{}, 1), ErrComm, "the communicator is nil"},
		{"type keyval freed as comm", theAPI.CommFreeKeyval(&tkv), ErrKeyval, "is a datatype keyval (want a communicator one)"},
		{"predefined", theAPI.CommFreeKeyval(&tagUB), ErrKeyval, "MPI_TAG_UB is predefined and cannot be freed"},
		{"nil pointer", theAPI.CommFreeKeyval(nil), ErrArg, "the keyval pointer is nil"},
		{"free", theAPI.CommFreeKeyval(&kv), nil, ""},
		{"free twice", theAPI.CommFreeKeyval(&held), ErrKeyval, "was freed"},
		{"free invalid", theAPI.CommFreeKeyval(&kv), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"comm keyval on a type", theAPI.TypeSetAttr(Int32, held, 1), ErrKeyval, "was freed"},
		{"type keyval on a type, invalid", theAPI.TypeSetAttr(Int32, Keyval{}, 1), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"type on null", theAPI.TypeSetAttr(Datatype{}, tkv, 1), ErrType, "MPI_DATATYPE_NULL"},
	} {
		if tc.says == "" {
			if tc.err != nil {
				t.Errorf("%s: %v", tc.what, tc.err)
			}
			continue
		}
		if !errors.Is(tc.err, tc.class) || !strings.Contains(tc.err.Error(), tc.says) {
			t.Errorf("%s: got %v, want %v saying %q", tc.what, tc.err, tc.class.Class, tc.says)
		}
	}
	if tagUB != AttrTagUB || kv != (Keyval{}) {
		t.Errorf("after the frees: tagUB %v, kv %v; want MPI_TAG_UB and MPI_KEYVAL_INVALID", tagUB, kv)
	}
	// A freed keyval reads and deletes its values until the last goes.
	vec, _ := theAPI.TypeVector(2, 1, 3, Int32)
	k, _ := theAPI.TypeCreateKeyval(nil, nil, nil)
	copied := k
	if err := errors.Join(theAPI.TypeSetAttr(vec, k, 1), theAPI.TypeFreeKeyval(&k)); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := theAPI.TypeGetAttr(vec, copied); v != 1 || !ok || err != nil {
		t.Errorf("get with a freed keyval of a value: %v %v %v", v, ok, err)
	}
	if err := theAPI.TypeDeleteAttr(vec, copied); err != nil {
		t.Errorf("delete with a freed keyval: %v", err)
	}
	if _, _, err := theAPI.TypeGetAttr(vec, copied); !errors.Is(err, ErrKeyval) || !strings.Contains(err.Error(), "was freed") {
		t.Errorf("get with a freed keyval whose values are gone: %v, want ErrKeyval", err)
	}
}

// TestTypeAttrs: a datatype's attributes are copied by TypeDup through
// the copy callbacks and deleted by Free; a failing delete keeps the
// type valid.
func TestTypeAttrs(t *testing.T) {
	r := &recorder{refuse: map[any]bool{}}
	kv, _ := theAPI.TypeCreateKeyval(TypeDupFn, func(_ Datatype, _ Keyval, v, _ any) error { return r.del(attrEntry{value: v}) }, nil)
	vec, err := theAPI.TypeVector(2, 1, 3, Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := theAPI.TypeSetAttr(vec, kv, "v"); err != nil {
		t.Fatal(err)
	}
	dup, err := theAPI.TypeDup(vec)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := theAPI.TypeGetAttr(dup, kv); v != "v" || !ok || err != nil || dup.Committed() || vec.Committed() {
		t.Fatalf("dup: %v, %v, %v, committed %v (and the original %v); want v, uncommitted as the original", v, ok, err, dup.Committed(), vec.Committed())
	}
	if err := theAPI.TypeCommit(vec); err != nil {
		t.Fatal(err)
	}
	if d, err := theAPI.TypeDup(vec); err != nil || !d.Committed() || theAPI.TypeFree(d) != nil {
		t.Fatalf("dup of a committed type: %v, committed %v; want committed", err, d.Committed())
	}
	if lb, ext := dup.Extent(); lb != 0 || ext != 16 || dup.Size() != 8 {
		t.Fatalf("dup: lb %d extent %d size %d; want 0, 16, 8", lb, ext, dup.Size())
	}
	r.refuse["v"] = true
	if err := theAPI.TypeFree(dup); !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "type free on vector") {
		t.Fatalf("free with a failing delete: %v", err)
	}
	if err := theAPI.TypeCommit(dup); err != nil {
		t.Fatalf("the type is unusable after a failed free: %v", err)
	}
	r.refuse["v"] = false
	if err := errors.Join(theAPI.TypeFree(dup), theAPI.TypeFree(vec)); err != nil || len(r.deleted) != 3 {
		t.Fatalf("free: %v, deleted %v; want the values of the two dups and the original deleted", err, r.deleted)
	}
	if _, err := theAPI.TypeDup(vec); err == nil || !strings.Contains(err.Error(), "was freed") {
		t.Fatalf("dup of a freed type: %v", err)
	}
	g := GoType(reflect.TypeFor[struct {
		A int32
		B float64
	}]())
	gd, err := theAPI.TypeDup(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := theAPI.TypeFree(gd); err != nil {
		t.Fatalf("a dup of a Go type's datatype is the caller's to free: %v", err)
	}
}

// TestAttrSetWhileFreed: a delete callback that sets an attribute on the
// object being freed is refused, since no callback would delete that
// value; a free that fails leaves the object's attributes settable.
func TestAttrSetWhileFreed(t *testing.T) {
	late, _ := theAPI.TypeCreateKeyval(TypeNullCopyFn, nil, nil)
	var setErr error
	fail := true
	hook, _ := theAPI.TypeCreateKeyval(TypeDupFn, func(dt Datatype, _ Keyval, _, _ any) error {
		setErr = theAPI.TypeSetAttr(dt, late, "late")
		if fail {
			return errRefused
		}
		return nil
	}, nil)
	vec, err := theAPI.TypeVector(2, 1, 3, Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := theAPI.TypeSetAttr(vec, hook, "hook"); err != nil {
		t.Fatal(err)
	}
	if err := theAPI.TypeFree(vec); !errors.Is(err, errRefused) {
		t.Fatalf("free with a failing delete: %v", err)
	}
	if !errors.Is(setErr, ErrArg) || !strings.Contains(setErr.Error(), "its attributes are being deleted") {
		t.Fatalf("set attr from the delete callback of a free: %v, want ErrArg", setErr)
	}
	if err := theAPI.TypeSetAttr(vec, late, "after"); err != nil {
		t.Fatalf("set attr after a failed free: %v", err)
	}
	fail = false
	if err := theAPI.TypeFree(vec); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(setErr, ErrArg) {
		t.Fatalf("set attr from the delete callback of a free: %v, want ErrArg", setErr)
	}
}
