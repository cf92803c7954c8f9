package hostmap

import "testing"

func TestParseMapBy(t *testing.T) {
	tests := []struct {
		in   string
		want MapBy
		str  string
	}{
		{"slot", MapBy{Mapping: MapSlot}, "slot"},
		{"node", MapBy{Mapping: MapNode}, "node"},
		{"NODE", MapBy{Mapping: MapNode}, "node"},
		{"ppr:2:node", MapBy{Mapping: MapPPR, PerNode: 2}, "ppr:2:node"},
		{"slot:OVERSUBSCRIBE", MapBy{Mapping: MapSlot, Oversubscribe: true}, "slot:oversubscribe"},
		{"ppr:1:node:oversubscribe", MapBy{Mapping: MapPPR, PerNode: 1, Oversubscribe: true}, "ppr:1:node:oversubscribe"},
		{":OVERSUBSCRIBE", MapBy{Oversubscribe: true}, "slot:oversubscribe"},
	}
	for _, tt := range tests {
		got, err := ParseMapBy(tt.in)
		if err != nil {
			t.Errorf("ParseMapBy(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want || got.String() != tt.str {
			t.Errorf("ParseMapBy(%q) = %+v (%s), want %+v (%s)", tt.in, got, got, tt.want, tt.str)
		}
	}
}

func TestParseMapByErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"core", []string{"--map-by core", `unknown policy "core"`, "want slot, node or ppr:N:node"}},
		{"socket", []string{`"socket"`, "ppr:N:node"}},
		{"", []string{"--map-by is empty", "want slot"}},
		{"ppr:2", []string{"ppr:2", "want ppr:N:node"}},
		{"ppr:0:node", []string{`ranks per node "0"`, "positive integer"}},
		{"ppr:x:node", []string{`ranks per node "x"`}},
		{"ppr:2:socket", []string{`per "socket"`, "only ppr:N:node"}},
		{"slot:pe=2", []string{`unknown modifier "pe=2"`, "only :oversubscribe"}},
		{"node:span", []string{`"span"`}},
	}
	for _, tt := range tests {
		_, err := ParseMapBy(tt.in)
		checkErr(t, "ParseMapBy("+tt.in+")", err, tt.want)
	}
}

func TestParseRankBy(t *testing.T) {
	for in, want := range map[string]RankBy{"slot": RankSlot, "node": RankNode, "Node": RankNode} {
		got, err := ParseRankBy(in)
		if err != nil || got != want || got.String() != map[RankBy]string{RankSlot: "slot", RankNode: "node"}[want] {
			t.Errorf("ParseRankBy(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"core", "", "fill"} {
		_, err := ParseRankBy(in)
		checkErr(t, "ParseRankBy("+in+")", err, []string{"--rank-by " + in, "want slot or node"})
	}
}
