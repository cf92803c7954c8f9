package trace

import "testing"

// TestBestOffset: the shortest round trip wins, and an offset within half
// of it is no offset.
func TestBestOffset(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples []clockSync
		want    clockSync
	}{
		{"shortest round trip", []clockSync{{measured: 900, rtt: 5000}, {measured: 2000, rtt: 1000}, {measured: 100, rtt: 3000}},
			clockSync{offset: 2000, measured: 2000, rtt: 1000}},
		{"within the error", []clockSync{{measured: -400, rtt: 1000}, {measured: 5000, rtt: 9000}},
			clockSync{offset: 0, measured: -400, rtt: 1000}},
		{"negative beyond the error", []clockSync{{measured: -600, rtt: 1000}},
			clockSync{offset: -600, measured: -600, rtt: 1000}},
		{"rank 0", nil, clockSync{}},
	} {
		if got := bestOffset(c.samples); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
