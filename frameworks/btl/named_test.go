package btl

import (
	"errors"
	"testing"
)

// A component's error is named once, by the framework, with what failed:
// components leave their own name out.
func TestNamedSaysTheComponentOnce(t *testing.T) {
	cause := errors.New("no usable interface")
	got := named("tcp", "init", cause)
	if want := "btl tcp: init: no usable interface"; got.Error() != want {
		t.Errorf("named(tcp, init, %q) = %q, want %q", cause, got, want)
	}
	if !errors.Is(got, cause) {
		t.Errorf("named(tcp, init, %q) does not wrap the cause", cause)
	}
}
