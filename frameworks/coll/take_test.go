package coll

import (
	"reflect"
	"strings"
	"testing"
)

// TestTakeFollowsCollectives: take(i) copies the function of collective i,
// the i-th of Module's functions, and no other; from a module without it,
// nothing.
func TestTakeFollowsCollectives(t *testing.T) {
	var full Module
	v := reflect.ValueOf(&full).Elem()
	var fields []int
	for i := 0; i < v.NumField() && len(fields) < len(Collectives); i++ {
		f := v.Field(i)
		if f.Kind() != reflect.Func {
			continue
		}
		f.Set(reflect.MakeFunc(f.Type(), func([]reflect.Value) []reflect.Value { panic("not called") }))
		fields = append(fields, i)
	}
	if len(fields) != len(Collectives) || numCollectives != len(Collectives) {
		t.Fatalf("Module has %d collective functions, Collectives %d names, numCollectives %d", len(fields), len(Collectives), numCollectives)
	}
	for i, name := range Collectives {
		field := v.Type().Field(fields[i]).Name
		if strings.ReplaceAll(name, "_", "") != strings.ToLower(field) {
			t.Fatalf("collective %d is %s, Module's function %d is %s", i, name, i, field)
		}
		var m Module
		if !m.take(i, &full) {
			t.Fatalf("take(%d) from a full module reported none", i)
		}
		got := reflect.ValueOf(&m).Elem()
		for k := range fields {
			if set := !got.Field(fields[k]).IsNil(); set != (k == i) {
				t.Fatalf("take(%d) (%s): %s set %v", i, name, v.Type().Field(fields[k]).Name, set)
			}
		}
		if m.take(i, &Module{}) || got.Field(fields[i]).IsNil() {
			t.Fatalf("take(%d) from an empty module reported one or cleared the function", i)
		}
	}
	var m Module
	if m.take(len(Collectives), &full) {
		t.Fatal("take past the last collective reported one")
	}
}
