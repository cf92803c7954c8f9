package hostmap

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	tests := []struct {
		in   string
		want []Host
	}{
		{"a", []Host{{Name: "a", Slots: 1}}},
		{"a,b,c", []Host{{Name: "a", Slots: 1}, {Name: "b", Slots: 1}, {Name: "c", Slots: 1}}},
		// Open MPI: a named twice counts twice, b:4 has 4, order of first mention.
		{"a,b:4,a", []Host{{Name: "a", Slots: 2}, {Name: "b", Slots: 4}}},
		{"a:2,a:3,a", []Host{{Name: "a", Slots: 6}}},
		{"node01.example.com:2", []Host{{Name: "node01.example.com", Slots: 2}}},
		{"10.0.0.1:3", []Host{{Name: "10.0.0.1", Slots: 3}}},
		{"fe80::1", []Host{{Name: "fe80::1", Slots: 1}}},
		{"[fe80::1]:2,[fe80::1]", []Host{{Name: "fe80::1", Slots: 3}}},
	}
	for _, tt := range tests {
		got, err := ParseHosts(tt.in)
		if err != nil {
			t.Errorf("ParseHosts(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseHosts(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseHostsErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string // each must appear in the error
	}{
		{"", []string{"entry 1", "empty", "want host or host:slots"}},
		{"a,,b", []string{"entry 2", "empty"}},
		{"a:x", []string{`"a:x"`, `slot count "x"`, "want a positive integer"}},
		{"a:0", []string{`slot count "0"`, "positive integer"}},
		{"a:-1", []string{`slot count "-1"`, "positive integer"}},
		{"a:99999999999", []string{"positive integer", "at most"}},
		{":2", []string{"empty host name"}},
		{"[fe80::1", []string{"no closing ]"}},
		{"[fe80::1]x", []string{`"x" after ]`, "[address]:slots"}},
		{"a b", []string{`"a b"`, "want a host name"}},
		{"u@a", []string{`contains '@'`}},
		{"h1:2:3", []string{`host name "h1:2:3" contains ':' and is no IPv6 address`}},
		{"[h1:2]", []string{`host name "h1:2" contains ':' and is no IPv6 address`}},
		{"a\x01b", []string{`contains '\x01'`}},
		{"a\xffb", []string{"not valid UTF-8"}},
		{"a\u00a0b", []string{`contains '\u00a0'`}},
	}
	for _, tt := range tests {
		_, err := ParseHosts(tt.in)
		checkErr(t, "ParseHosts("+tt.in+")", err, tt.want)
	}
}

// checkErr fails unless err is non-nil and names everything in want.
func checkErr(t *testing.T, call string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one naming %q", call, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not name %q", call, err, w)
		}
	}
}
