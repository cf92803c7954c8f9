// Command attrcheck runs one attribute or info scenario on every rank of
// a gompirun job and prints "ok <scenario> rank <r>" when the rank's
// checks pass; a failed check prints FAIL and exits 1. The tests in
// test/attr run it.
package main

import (
	"errors"
	"fmt"
	"strings"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/internal/scenario"
	"github.com/gompi/gompi/mpi"
)

var scenarios = map[string]func(mpi.Comm, []string) error{
	"comm":       commAttrs,  // comm.go
	"commerrors": commErrors, // comm.go
	"predefined": predefined, // predefined.go
	"info":       info,       // info.go
	"types":      typeAttrs,  // types.go
	"idup":       idup,       // idup.go
	"hints":      hints,      // hints.go
}

func main() { scenario.Main("attrcheck", scenarios) }

// wantErr checks that err is target's class and says says.
func wantErr(what string, err, target error, says string) error {
	if !errors.Is(err, target) || !strings.Contains(fmt.Sprint(err), says) {
		return fmt.Errorf("%s: got %v, want %v saying %q", what, err, target, says)
	}
	return nil
}

// wantAttr checks c's value under kv.
func wantAttr(what string, c mpi.Comm, kv mpi.Keyval, want any, wantOK bool) error {
	v, ok, err := c.Attr(kv)
	if err != nil || ok != wantOK || (ok && v != want) {
		return fmt.Errorf("%s: Attr = %v, %v, %v; want %v, %v", what, v, ok, err, want, wantOK)
	}
	return nil
}
