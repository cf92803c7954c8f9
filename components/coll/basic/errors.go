package basic

import "github.com/gompi/gompi/frameworks/coll"

// A rank that meets an error in a collective goes on with every send and
// receive of its part, so that no peer waits for ever on it and every
// message sent is received; in place of data it sends poison (payload),
// which fails its peers' receives in turn. It returns its first error.

// payload is buf, or once err is set a failure mark in its place
// (coll.FailureMark): its peers then fail instead of taking its data.
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
