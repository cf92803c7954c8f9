package params

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRegisterErrors(t *testing.T) {
	base := func(mod func(*Def)) Def {
		d := Def{Name: "btl_sm_x", Framework: "btl", Component: "sm", Kind: KindInt,
			Default: "1", Help: "Help.", Level: 3}
		mod(&d)
		return d
	}
	tests := []struct {
		name string
		def  Def
		want string
	}{
		{"uppercase", base(func(d *Def) { d.Name = "btl_sm_X" }), "invalid name"},
		{"dot", base(func(d *Def) { d.Name = "btl.sm.x" }), "invalid name"},
		{"double underscore", base(func(d *Def) { d.Name = "btl__x" }), "invalid name"},
		{"trailing underscore", base(func(d *Def) { d.Name = "btl_x_" }), "invalid name"},
		{"leading digit", base(func(d *Def) { d.Name = "1btl" }), "invalid name"},
		{"empty help", base(func(d *Def) { d.Help = "  " }), "empty help"},
		{"level 0", base(func(d *Def) { d.Level = 0 }), "level 0 is outside 1-9"},
		{"level 10", base(func(d *Def) { d.Level = 10 }), "level 10 is outside 1-9"},
		{"no kind", base(func(d *Def) { d.Kind = 0 }), "invalid kind"},
		{"bad default", base(func(d *Def) { d.Default = "12x" }), `default "12x" is not an integer`},
		{"bad size default", base(func(d *Def) { d.Kind, d.Default = KindSize, "1q" }), "is not a size in bytes"},
		{"default fails Validate", base(func(d *Def) {
			d.Validate = func(any) error { return errors.New("too small") }
		}), `default "1": too small`},
		{"enum without values", base(func(d *Def) { d.Kind, d.Default = KindEnum, "a" }), "enum without values"},
		{"enum default not a value", base(func(d *Def) {
			d.Kind, d.Default, d.Values = KindEnum, "c", []EnumValue{{"a", ""}, {"b", ""}}
		}), `default "c" is not one of: a, b`},
		{"enum value twice", base(func(d *Def) {
			d.Kind, d.Default, d.Values = KindEnum, "a", []EnumValue{{"a", ""}, {"A", ""}}
		}), "listed twice"},
		{"values on non-enum", base(func(d *Def) { d.Values = []EnumValue{{"a", ""}} }), "only enums have values"},
		{"bad synonym", base(func(d *Def) { d.Synonyms = []string{"Old"} }), `invalid synonym or deprecated name "Old"`},
		{"synonym is own name", base(func(d *Def) { d.Synonyms = []string{"btl_sm_x"} }), "listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry().Register(tt.def)
			if !errors.Is(err, ErrRegistration) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Register: %v, want ErrRegistration containing %q", err, tt.want)
			}
		})
	}
}

func TestRegisterConflicts(t *testing.T) {
	first := Def{Name: "btl_sm_x", Framework: "btl", Component: "sm", Kind: KindInt,
		Default: "1", Help: "Help.", Level: 3,
		Synonyms: []string{"btl_sm_y"}, Deprecated: []string{"btl_sm_old"}}
	tests := []struct {
		name string
		def  Def
		want string // "" means no error
	}{
		{"identical", first, ""},
		{"identical apart from help", func() Def { d := first; d.Help = "Other."; return d }(), ""},
		{"other default", func() Def { d := first; d.Default = "2"; return d }(),
			`parameter "btl_sm_x" (btl/sm): already registered by btl/sm with kind int and default "1"`},
		{"other kind", func() Def { d := first; d.Kind = KindSize; return d }(), "already registered"},
		{"other owner", func() Def { d := first; d.Framework, d.Component = "coll", "sm"; return d }(),
			`parameter "btl_sm_x" (coll/sm): already registered by btl/sm`},
		{"name is a synonym", Def{Name: "btl_sm_y", Framework: "btl", Component: "other", Kind: KindInt,
			Default: "1", Help: "h", Level: 1},
			`parameter "btl_sm_y" (btl/other): name "btl_sm_y" is already used by parameter btl_sm_x (btl/sm)`},
		{"synonym is a name", Def{Name: "btl_sm_z", Framework: "coll", Component: "z", Kind: KindInt,
			Default: "1", Help: "h", Level: 1, Synonyms: []string{"btl_sm_x"}},
			`name "btl_sm_x" is already used by parameter btl_sm_x (btl/sm)`},
		{"deprecated name reused", Def{Name: "btl_sm_z", Framework: "coll", Component: "z", Kind: KindInt,
			Default: "1", Help: "h", Level: 1, Deprecated: []string{"btl_sm_old"}},
			`name "btl_sm_old" is already used by parameter btl_sm_x (btl/sm)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			if err := r.Register(first); err != nil {
				t.Fatal(err)
			}
			err := r.Register(tt.def)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("re-register: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrRegistration) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Register: %v, want ErrRegistration containing %q", err, tt.want)
			}
		})
	}
}

func TestRegistrar(t *testing.T) {
	r := NewRegistry()
	reg := r.Scope("btl", "tcp")
	p := reg.Int(Spec{Name: "priority", Default: "10", Help: "h", Level: 3, Synonyms: []string{"btl_tcp_prio"}})
	bad := reg.Size(Spec{Name: "limit", Default: "lots", Help: "h", Level: 3})
	reg.Bool(Spec{Name: "nohelp", Default: "true", Level: 3})
	if p.Name() != "btl_tcp_priority" || bad.Name() != "btl_tcp_limit" {
		t.Fatalf("names %q %q", p.Name(), bad.Name())
	}
	err := reg.Err()
	if !errors.Is(err, ErrRegistration) || !strings.Contains(err.Error(), "btl_tcp_limit") ||
		!strings.Contains(err.Error(), "btl_tcp_nohelp") {
		t.Fatalf("Err() = %v, want both failures", err)
	}
	d, ok := r.Lookup("btl_tcp_prio")
	if !ok || d.Name != "btl_tcp_priority" || d.Framework != "btl" || d.Component != "tcp" || d.Kind != KindInt {
		t.Fatalf("Lookup(synonym) = %+v, %v", d, ok)
	}
	if _, ok := r.Lookup("btl_tcp_limit"); ok {
		t.Fatal("a failed registration is registered")
	}

	clearEnv(t)
	s := mustResolve(t, r, Inputs{})
	if got := p.Get(s); got != 10 {
		t.Fatalf("Get = %d", got)
	}
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, `"btl_tcp_limit" is not in the snapshot`) {
			t.Fatalf("Get of an unregistered parameter: recovered %q", msg)
		}
	}()
	bad.Get(s)
}

func TestRegistrarKinds(t *testing.T) {
	clearEnv(t)
	r := NewRegistry()
	reg := r.Scope("x", "y")
	b := reg.Bool(Spec{Name: "b", Default: "yes", Help: "h", Level: 1})
	i := reg.Int(Spec{Name: "i", Default: "0x10", Help: "h", Level: 1})
	z := reg.Size(Spec{Name: "z", Default: "1k", Help: "h", Level: 1})
	f := reg.Float(Spec{Name: "f", Default: "0.5", Help: "h", Level: 1})
	s := reg.String(Spec{Name: "s", Default: "hi", Help: "h", Level: 1})
	l := reg.List(Spec{Name: "l", Default: "a, b", Help: "h", Level: 1})
	e := reg.Enum(Spec{Name: "e", Default: "B", Help: "h", Level: 1, Values: []EnumValue{{"a", ""}, {"b", ""}}})
	v := reg.Verbosity(Spec{Name: "v", Default: "debug", Help: "h", Level: 1})
	if err := reg.Err(); err != nil {
		t.Fatal(err)
	}
	snap := mustResolve(t, r, Inputs{})
	if b.Get(snap) != true || i.Get(snap) != 16 || z.Get(snap) != 1024 || f.Get(snap) != 0.5 ||
		s.Get(snap) != "hi" || e.Get(snap) != "b" || v.Get(snap) != VerboseDebug {
		t.Fatal("wrong typed values")
	}
	list := l.Get(snap)
	if !reflect.DeepEqual(list, []string{"a", "b"}) {
		t.Fatalf("list = %q", list)
	}
	list[0] = "changed" // must not reach the snapshot
	if got := l.Get(snap); got[0] != "a" {
		t.Fatal("Get exposes the snapshot's slice")
	}
	val, _ := snap.Lookup("x_y_e")
	if val.Raw != "B" || val.Parsed != "b" {
		t.Fatalf("enum Raw/Parsed = %q/%q", val.Raw, val.Parsed)
	}
}

func TestDefsSortedAndCore(t *testing.T) {
	r := NewRegistry()
	r.Scope("coll", "a").Int(Spec{Name: "z", Default: "1", Help: "h", Level: 1})
	r.Scope("btl", "tcp").Int(Spec{Name: "b", Default: "1", Help: "h", Level: 1})
	r.Scope("btl", "tcp").Int(Spec{Name: "a", Default: "1", Help: "h", Level: 1})
	r.Scope("btl", "sm").Int(Spec{Name: "z", Default: "1", Help: "h", Level: 1})
	var names []string
	for _, d := range r.Defs() {
		names = append(names, d.Name)
	}
	want := []string{"btl_sm_z", "btl_tcp_a", "btl_tcp_b", "coll_a_z", "mca_base_param_files", "mca_base_strict"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("Defs order %q, want %q", names, want)
	}
	for _, name := range []string{"mca_base_param_files", "mca_base_strict"} {
		d, ok := r.Lookup(name)
		if !ok || d.Framework != "mca" || d.Component != "base" || d.Level != 2 {
			t.Errorf("core parameter %s: %+v", name, d)
		}
	}
}
