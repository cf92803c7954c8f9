package basic

import "github.com/gompi/gompi/frameworks/coll"

// firstErr keeps the first of a sequence of errors: an algorithm goes on
// after a failed step so that its peers are not left waiting.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if f.err == nil {
		f.err = err
	}
}

// payload is buf, or once err is set a failure mark in its place
// (coll.FailureMark): a rank that failed goes on with its part, and its
// peers then fail instead of taking its data.
func payload(buf []byte, err error) []byte {
	if err != nil {
		return coll.FailureMark(len(buf))
	}
	return buf
}

// first is err, or next if err is nil.
func first(err, next error) error {
	if err != nil {
		return err
	}
	return next
}
