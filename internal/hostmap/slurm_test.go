package hostmap

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpandNodeList(t *testing.T) {
	tests := []struct {
		in   string
		want string // space-separated
	}{
		{"login", "login"},
		{"h[1-3]", "h1 h2 h3"},
		{"h[1-3],gpu[01-02,7],login", "h1 h2 h3 gpu01 gpu02 gpu7 login"}, // each range keeps its own width, as Slurm,
		{"n[08-11]", "n08 n09 n10 n11"},
		{"n[8-11]", "n8 n9 n10 n11"},
		{"n[001-002]", "n001 n002"},
		{"n[3]", "n3"},
		{"n[1,3-4,9]", "n1 n3 n4 n9"},
		{"rack[1-2]-node[01-02]", "rack1-node01 rack1-node02 rack2-node01 rack2-node02"},
		{"[1-2]x", "1x 2x"},
		{"a,b", "a b"},
		{"h[1-2],h[1-2]", "h1 h2 h1 h2"}, // as scontrol show hostnames
	}
	for _, tt := range tests {
		got, err := ExpandNodeList(tt.in)
		if err != nil {
			t.Errorf("ExpandNodeList(%q): %v", tt.in, err)
			continue
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("ExpandNodeList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandNodeListErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{"empty", "h[1-3],login"}},
		{"a,,b", []string{`"a,,b"`, "empty name"}},
		{"h[1-3", []string{"h[1-3", "[ without ]"}},
		{"h1-3]", []string{"] without ["}},
		{"h[]", []string{"[]", "want a number or a range"}},
		{"h[a-c]", []string{`"a-c"`, "want a number or a range"}},
		{"h[3-1]", []string{"3-1 goes down", "low-high"}},
		{"h[1-2-3]", []string{`"1-2-3"`}},
		{"h[[1]]", []string{"brackets inside brackets"}},
		{"h[0-999999999]", []string{"more than 65536 names"}},
		{"a[0-999]b[0-999]", []string{"more than 65536 names"}},
		{"h[1-2] x", []string{`contains ' '`}},
	}
	for _, tt := range tests {
		_, err := ExpandNodeList(tt.in)
		checkErr(t, "ExpandNodeList("+tt.in+")", err, tt.want)
	}
}

func TestParseTasksPerNode(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"1", []int{1}},
		{"2(x3)", []int{2, 2, 2}},
		{"2(x2),1", []int{2, 2, 1}}, // srun -N3 -n5
		{"4,2(x2),8", []int{4, 2, 2, 8}},
	}
	for _, tt := range tests {
		got, err := ParseTasksPerNode(tt.in)
		if err != nil {
			t.Errorf("ParseTasksPerNode(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseTasksPerNode(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseTasksPerNodeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{`count ""`, "positive integer"}},
		{"0", []string{`count "0"`, "positive integer"}},
		{"2(x3", []string{`"2(x3"`, "want N or N(xR)"}},
		{"2(x0)", []string{`repeat "0"`, "positive integer"}},
		{"2(3)", []string{`count "2(3)"`}},
		{"1,", []string{`count ""`}},
		{"1(x70000)", []string{"more than 65536 counts"}},
	}
	for _, tt := range tests {
		_, err := ParseTasksPerNode(tt.in)
		checkErr(t, "ParseTasksPerNode("+tt.in+")", err, tt.want)
	}
}

func TestSlurmHosts(t *testing.T) {
	// The environment of srun -N3 -n6 on hosts h1..h3.
	got, err := SlurmHosts("h[1-3]", "2(x3)")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{Name: "h1", Slots: 2}, {Name: "h2", Slots: 2}, {Name: "h3", Slots: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SlurmHosts = %+v, want %+v", got, want)
	}
	m, err := Place(got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hostsOf(m); got != "h1 h1 h2 h2 h3 h3" {
		t.Errorf("placement %q, want h1 h1 h2 h2 h3 h3 as srun -N3 -n6 runs", got)
	}

	tests := []struct {
		nodes, counts string
		want          []string
	}{
		{"h[1-3]", "2(x2)", []string{`"h[1-3]" has 3 nodes`, `"2(x2)" has 2 counts`, "one count per node"}},
		{"h1,h1", "1(x2)", []string{"names h1 twice"}},
		{"h[1-", "1", []string{"[ without ]"}},
		{"h1", "x", []string{`count "x"`}},
	}
	for _, tt := range tests {
		_, err := SlurmHosts(tt.nodes, tt.counts)
		checkErr(t, "SlurmHosts("+tt.nodes+", "+tt.counts+")", err, tt.want)
	}
}
