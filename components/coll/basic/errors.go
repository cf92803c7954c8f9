package basic

// firstErr keeps the first of a sequence of errors: an algorithm goes on
// after a failed step so that its peers are not left waiting.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if f.err == nil {
		f.err = err
	}
}
