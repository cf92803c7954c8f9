package params

import (
	"errors"
	"testing"
)

func TestDefine(t *testing.T) {
	r := NewRegistry()
	p, err := Define[string](r, Def{Name: "fw", Framework: "fw", Component: "base", Kind: KindString, Help: "Selection.", Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := r.Resolve(Inputs{CommandLine: []Setting{{Name: "fw", Value: "a,b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Get(snap); got != "a,b" {
		t.Errorf("Get = %q", got)
	}
	if _, err := Define[int](r, Def{Name: "fw_x", Kind: KindString, Help: "x", Level: 1}); !errors.Is(err, ErrRegistration) {
		t.Errorf("mismatched Go type: %v, want ErrRegistration", err)
	}
	if _, err := Define[string](r, Def{Name: "Bad", Kind: KindString, Help: "x", Level: 1}); !errors.Is(err, ErrRegistration) {
		t.Errorf("bad name: %v, want ErrRegistration", err)
	}
}
