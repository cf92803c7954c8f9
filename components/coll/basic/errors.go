package basic

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// errorf reports arguments that collective name cannot run with on c.
func errorf(name string, c coll.Comm, format string, args ...any) error {
	return fmt.Errorf("coll basic: %s on %s: %s", name, c.Name(), fmt.Sprintf(format, args...))
}

// wrap gives a transfer's error the collective and the communicator; nil
// stays nil.
func wrap(name string, c coll.Comm, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("coll basic: %s on %s: %w", name, c.Name(), err)
}

// firstErr keeps the first of a sequence of errors: an algorithm goes on
// after a failed step so that its peers are not left waiting.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if f.err == nil {
		f.err = err
	}
}
