package pmpi

import (
	"errors"
	"strings"
	"testing"
)

// The zero Message is MessageNull, and MessageNoProc is another.
func TestMessageHandles(t *testing.T) {
	var m Message
	if m != MessageNull || MessageNoProc == MessageNull {
		t.Fatal("the zero Message is not MessageNull, or MessageNoProc is")
	}
}

// Before Init every matched-probe call fails saying so, and a receive
// leaves the caller's message as it was.
func TestMatchedProbeBeforeInit(t *testing.T) {
	if state.Load() != stateNew {
		t.Skip("MPI was initialised in this process")
	}
	api := Real()
	m := MessageNoProc
	_, _, err1 := api.Mprobe(0, 0, nil)
	_, _, _, err2 := api.Improbe(0, 0, nil)
	_, err3 := api.Mrecv(nil, 0, Byte, &m)
	_, err4 := api.Imrecv(nil, 0, Byte, &m)
	for i, err := range []error{err1, err2, err3, err4} {
		if !errors.Is(err, ErrOther) || !strings.Contains(err.Error(), "call Init first") {
			t.Errorf("call %d before Init: %v", i, err)
		}
	}
	if m != MessageNoProc {
		t.Error("a receive before Init changed the message")
	}
}
