package params

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseParamFile(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []fileEntry
		errs []string // each must appear in the error
	}{
		{"comments and blanks",
			"# a comment\n\n   # indented comment\n\t\nbtl_tcp_priority = 5\n",
			[]fileEntry{{"btl_tcp_priority", "5", 5}}, nil},
		{"trailing comment",
			"a_b = tcp,self   # the usual\nc = x#y\nd = x\t# tab\n",
			[]fileEntry{{"a_b", "tcp,self", 1}, {"c", "x#y", 2}, {"d", "x", 3}}, nil},
		{"spacing and empty value",
			"  a=1  \nb =\nc = # nothing\nd = x = y\r\n",
			[]fileEntry{{"a", "1", 1}, {"b", "", 2}, {"c", "", 3}, {"d", "x = y", 4}}, nil},
		{"missing equals",
			"a = 1\njust text\nb = 2\n",
			[]fileEntry{{"a", "1", 1}, {"b", "2", 3}}, []string{`f.conf:2: want "name = value", got "just text"`}},
		{"bad names",
			"Btl = 1\n = 2\nbtl.tcp = 3\n",
			nil, []string{`f.conf:1: invalid parameter name "Btl"`, `f.conf:2: invalid parameter name ""`, `f.conf:3:`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseParamFile("f.conf", strings.NewReader(tt.text))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entries %+v, want %+v", got, tt.want)
			}
			if (err != nil) != (len(tt.errs) > 0) {
				t.Fatalf("err = %v, want errors %q", err, tt.errs)
			}
			for _, e := range tt.errs {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("error %q lacks %q", err, e)
				}
			}
		})
	}
}

// A bad line fails Resolve, naming file and line.
func TestResolveBadFile(t *testing.T) {
	clearEnv(t)
	user := writeFile(t, t.TempDir(), "u.conf", "btl_tcp_priority = 3\nno equals here\n")
	_, err := testRegistry(t).Resolve(Inputs{UserFile: user})
	if err == nil || !strings.Contains(err.Error(), user+":2:") {
		t.Fatalf("err = %v, want one naming %s:2", err, user)
	}
}

// A bad value in a file names the file and line.
func TestResolveBadFileValue(t *testing.T) {
	clearEnv(t)
	user := writeFile(t, t.TempDir(), "u.conf", "\nbtl_tcp_eager_limit = 1.5k\n")
	_, err := testRegistry(t).Resolve(Inputs{UserFile: user})
	want := `parameter btl_tcp_eager_limit: value "1.5k" from file ` + user + `:2 is not a size`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// A line over MaxLineBytes is reported with its file, line, length and the
// limit, and skipped; the lines around it still count, and a line of
// exactly the limit is accepted.
func TestParseParamFileLongLine(t *testing.T) {
	long := "a = " + strings.Repeat("x", 1<<20)
	limit := "b = " + strings.Repeat("y", MaxLineBytes-4)
	text := "c = 1\n" + long + "\n" + limit + "\r\nd = 2"
	got, err := parseParamFile("f.conf", strings.NewReader(text))
	want := []fileEntry{{"c", "1", 1}, {"b", strings.Repeat("y", MaxLineBytes-4), 3}, {"d", "2", 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d entries, want c, b and d", len(got))
	}
	msg := fmt.Sprintf("f.conf:2: the line is %d bytes long; a parameter file line may have at most %d bytes", len(long), MaxLineBytes)
	if err == nil || err.Error() != msg {
		t.Fatalf("err = %v, want %q", err, msg)
	}
}

// A long bad value is shortened in messages.
func TestQuoteShort(t *testing.T) {
	if got := quoteShort("abc"); got != `"abc"` {
		t.Errorf("quoteShort(abc) = %s", got)
	}
	got := quoteShort(strings.Repeat("é", 100))
	if want := fmt.Sprintf("%q... (200 bytes)", strings.Repeat("é", 30)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
