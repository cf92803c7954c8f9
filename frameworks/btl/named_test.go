package btl

import (
	"errors"
	"testing"
)

// A component's error is named once: by the component when it says
// "btl <name>:" itself, else by the framework, with what failed.
func TestNamedSaysTheComponentOnce(t *testing.T) {
	cause := errors.New("no usable interface")
	for _, c := range []struct {
		component string
		err       error
		want      string
	}{
		{"tcp", errors.New("btl tcp: the job has no secret"), "btl tcp: the job has no secret"},
		{"x", cause, "btl x: init: no usable interface"},
		{"tcp", errors.New("btl tcpx: what"), "btl tcp: init: btl tcpx: what"}, // another component's name
	} {
		got := named(c.component, "init", c.err)
		if got.Error() != c.want {
			t.Errorf("named(%q, init, %q) = %q, want %q", c.component, c.err, got, c.want)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("named(%q, init, %q) does not wrap the cause", c.component, c.err)
		}
	}
}
