package pmpi

import (
	"fmt"
	"reflect"
	"sync"
)

// goTypes caches GoType's result per Go type: reflection runs once.
var goTypes sync.Map // reflect.Type -> Datatype

// GoType returns the datatype of elements of Go type t: a predefined type
// for a number; for a struct or array of fixed-size numbers (nested as
// deep as need be), a committed derived type whose data is the fields and
// whose extent is the Go size, so that a slice of t is sent as it lies
// in memory, padding left out. Any other type (strings, slices, maps,
// pointers, bools, interfaces) gives an invalid type, with which every
// call fails naming the field at fault.
func GoType(t reflect.Type) Datatype {
	if dt, ok := typeOfKind(t.Kind()); ok {
		return dt
	}
	if dt, ok := goTypes.Load(t); ok {
		return dt.(Datatype)
	}
	dt, why := goLayout(t)
	if why != "" {
		dt = Datatype{&typeDesc{derived: true, name: t.String(), layout: layout{
			bad: fmt.Sprintf("element type %s: %s; allowed: fixed-size numbers, arrays and structs of them", t, why)}}}
	} else if dt.t.derived {
		// A copy, so that the cached type is marked without touching a
		// type another constructor made.
		d := *dt.t
		d.name, d.naming, d.goType = t.String(), nil, true
		d.state = &typeState{}
		d.state.committed.Store(true)
		dt = Datatype{&d}
	}
	got, _ := goTypes.LoadOrStore(t, dt)
	return got.(Datatype)
}

// goLayout builds t's layout, or says why t cannot be sent.
func goLayout(t reflect.Type) (Datatype, string) {
	if dt, ok := typeOfKind(t.Kind()); ok {
		return dt, ""
	}
	switch t.Kind() {
	case reflect.Array:
		elem, why := goLayout(t.Elem())
		if why != "" {
			return Datatype{}, why
		}
		dt, err := theAPI.TypeContiguous(t.Len(), elem)
		if err != nil {
			return Datatype{}, err.Error()
		}
		return dt, ""
	case reflect.Struct:
		var entries []placed
		for i := range t.NumField() {
			f := t.Field(i)
			ft, why := goLayout(f.Type)
			if why != "" {
				if f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Array {
					return Datatype{}, fmt.Sprintf("field %s: %s", f.Name, why)
				}
				return Datatype{}, fmt.Sprintf("field %s %s", f.Name, why)
			}
			entries = append(entries, one(int(f.Offset), ft.t, 1))
		}
		dt, err := buildType(t.String, entries)
		if err != nil {
			return Datatype{}, err.Error()
		}
		dt.t.lb, dt.t.extent = 0, int(t.Size())
		dt.t.finish()
		return dt, ""
	}
	k := kindName(t)
	if k == "interface" {
		return Datatype{}, "is an interface"
	}
	return Datatype{}, "is a " + k
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Slice:
		return "slice"
	case reflect.Map:
		return "map"
	case reflect.Pointer, reflect.UnsafePointer:
		return "pointer"
	case reflect.Interface:
		return "interface"
	case reflect.Chan:
		return "channel"
	case reflect.Func:
		return "func"
	}
	return t.Kind().String()
}
