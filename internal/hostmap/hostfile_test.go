package hostmap

import (
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseHostfile(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Host
	}{
		{"slots", "a slots=2\nb slots=4\n", []Host{{Name: "a", Slots: 2}, {Name: "b", Slots: 4}}},
		{"comments and blanks", "# cluster\n\n  a slots=2   # two cores\n\t\n#b slots=9\nc slots=1", []Host{{Name: "a", Slots: 2}, {Name: "c", Slots: 1}}},
		{"max_slots", "node0 slots=2 max_slots=20\n", []Host{{Name: "node0", Slots: 2, MaxSlots: 20}}},
		{"max_slots first", "a max_slots=4 slots=2", []Host{{Name: "a", Slots: 2, MaxSlots: 4}}},
		// Open MPI: max_slots alone sets the slot count too.
		{"max_slots only", "a max_slots=3", []Host{{Name: "a", Slots: 3, MaxSlots: 3}}},
		{"spaces around =", "a slots = 2 max_slots= 3", []Host{{Name: "a", Slots: 2, MaxSlots: 3}}},
		{"user", "alice@a slots=2\nb", []Host{{Name: "a", User: "alice", Slots: 2}, {Name: "b", Slots: 1, SlotsUnknown: true}}},
		// No slots=: 1 in place of the core count Open MPI would find.
		{"bare", "a\nb\n", []Host{{Name: "a", Slots: 1, SlotsUnknown: true}, {Name: "b", Slots: 1, SlotsUnknown: true}}},
		// One line per slot, in order of first mention (Open MPI gives a 2 slots here).
		{"repeated bare", "a\nb\na\n", []Host{{Name: "a", Slots: 2, SlotsUnknown: true}, {Name: "b", Slots: 1, SlotsUnknown: true}}},
		{"repeated with slots", "a slots=2\nb slots=1\na slots=3", []Host{{Name: "a", Slots: 5}, {Name: "b", Slots: 1}}},
		{"repeated, limit and user once", "a slots=2\nbob@a slots=1 max_slots=4\nbob@a", []Host{{Name: "a", User: "bob", Slots: 4, MaxSlots: 4}}},
		{"ipv6", "fe80::1 slots=2", []Host{{Name: "fe80::1", Slots: 2}}},
		{"crlf", "a slots=2\r\nb slots=1\r\n", []Host{{Name: "a", Slots: 2}, {Name: "b", Slots: 1}}},
		{"empty file", "", nil},
	}
	for _, tt := range tests {
		got, err := ParseHostfile("hosts", strings.NewReader(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestParseHostfileErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a\nb\nc slots=x", []string{"hosts:3:", "slots=x", "want a positive integer"}},
		{"a slots=0", []string{"hosts:1:", "slots=0", "positive integer"}},
		{"a slots=-2", []string{"slots=-2", "positive integer"}},
		{"a max_slots=1.5", []string{"max_slots=1.5", "positive integer"}},
		{"a slots=4 max_slots=2", []string{"hosts:1:", "slots=4", "max_slots=2", "at most max_slots"}},
		{"a slots=2 slots=3", []string{"slots given twice"}},
		{"a cpus=4", []string{"hosts:1:", `unknown key "cpus"`, "want slots=N or max_slots=M"}},
		{"a 4", []string{`4: want slots=N or max_slots=M`}},
		{"\n\nslots=2", []string{"hosts:3:", "want a host name first"}},
		{"@a", []string{"empty user", "user@host"}},
		{"a@", []string{"empty host name"}},
		{"u@v@a", []string{`contains '@'`}},
		{"a,b slots=2", []string{`contains ','`}},
		{"a\nh1:2", []string{"hosts:2:", "h1:2: a hostfile gives slots as h1 slots=2"}},
		{"h1:x", []string{`host name "h1:x" contains ':' and is no IPv6 address`}},
		{"x@a\ny@a", []string{"hosts:2:", "user y", "line 1 gave user x", "one user"}},
		{"a max_slots=2\n\na max_slots=3", []string{"hosts:3:", "max_slots=3", "line 1 gave max_slots=2"}},
		// The merged count breaks the limit: the error points at the limit's line.
		{"a slots=2\na slots=2 max_slots=3", []string{"hosts:2:", "a:", "4 slots", "max_slots=3"}},
	}
	for _, tt := range tests {
		_, err := ParseHostfile("hosts", strings.NewReader(tt.in))
		checkErr(t, "ParseHostfile("+tt.in+")", err, tt.want)
	}
}

func TestParseHostfileReadError(t *testing.T) {
	r := iotest.TimeoutReader(strings.NewReader("a slots=1\n"))
	_, err := ParseHostfile("hosts", iotest.OneByteReader(r))
	checkErr(t, "ParseHostfile(failing reader)", err, []string{"hosts:", "timeout"})
}
