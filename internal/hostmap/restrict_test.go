package hostmap

import (
	"fmt"
	"reflect"
	"testing"
)

func TestRestrict(t *testing.T) {
	alloc := mustHostfile(t, "a slots=4\nbob@b slots=4 max_slots=6\nc\n")
	tests := []struct {
		sel  string
		want []Host
	}{
		// Order and slots from --host, user and limit from the hostfile.
		{"b:2,a", []Host{{Name: "b", User: "bob", Slots: 2, MaxSlots: 6}, {Name: "a", Slots: 1}}},
		{"b,b,b", []Host{{Name: "b", User: "bob", Slots: 3, MaxSlots: 6}}},
		{"c:3", []Host{{Name: "c", Slots: 3}}},
	}
	for _, tt := range tests {
		got, err := Restrict(alloc, "hostfile hosts", mustHosts(t, tt.sel))
		if err != nil {
			t.Errorf("Restrict(%s): %v", tt.sel, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Restrict(%s) = %+v, want %+v", tt.sel, got, tt.want)
		}
	}

	// Open MPI's documented example: node03 out of node01..node04, -n 1.
	slurm, err := SlurmHosts("node[01-04]", "2(x4)")
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := Restrict(slurm, "the Slurm allocation", mustHosts(t, "node03"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Place(hosts, Options{NP: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hostsOf(m); got != "node03" {
		t.Errorf("placement %q, want node03", got)
	}
}

func TestRestrictErrors(t *testing.T) {
	alloc := mustHostfile(t, "a slots=4\nb slots=4 max_slots=6\n")
	_, err := Restrict(alloc, "hostfile hosts", mustHosts(t, "a,node17"))
	checkErr(t, "Restrict(node17)", err, []string{"host node17 is not in hostfile hosts", "want one of its 2 hosts: a (4 slots), b (4 slots)"})
	_, err = Restrict(alloc, "hostfile hosts", mustHosts(t, "b:7"))
	checkErr(t, "Restrict(b:7)", err, []string{"host b: 7 slots given", "max_slots=6"})

	var many []Host
	for i := range 10 {
		many = append(many, Host{Name: fmt.Sprintf("n%d", i), Slots: 1})
	}
	_, err = Restrict(many, "the Slurm allocation", mustHosts(t, "x"))
	checkErr(t, "Restrict(10 hosts)", err, []string{"not in the Slurm allocation", "10 hosts: n0 (1 slot), n1 (1 slot)", "n7 (1 slot), and 2 more"})
}
