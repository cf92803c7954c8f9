package cpuset

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		cpus []int
		want string
	}{
		{nil, ""}, {[]int{3}, "3"}, {[]int{0, 1, 2, 3, 6}, "0-3,6"}, {[]int{1, 3, 4, 8, 9, 10}, "1,3-4,8-10"},
	} {
		if got := Format(c.cpus); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.cpus, got, c.want)
		}
	}
}

func TestAllowed(t *testing.T) {
	cpus, err := Allowed()
	if err != nil || len(cpus) == 0 {
		t.Fatalf("Allowed: %v, %v", cpus, err)
	}
	for i := 1; i < len(cpus); i++ {
		if cpus[i] <= cpus[i-1] {
			t.Fatalf("Allowed: %v is not ascending", cpus)
		}
	}
}
