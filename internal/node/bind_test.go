package node

import (
	"slices"
	"testing"
)

func TestRankCPUs(t *testing.T) {
	cpus := []int{0, 2, 4, 6}
	tests := []struct {
		bind Bind
		np   int
		want [][]int
	}{
		{BindNone, 2, nil},
		{BindAuto, 1, [][]int{{0, 2, 4, 6}}},
		{BindAuto, 2, [][]int{{0, 2}, {4, 6}}},
		{BindAuto, 3, [][]int{{0}, {2}, {4, 6}}},
		{BindAuto, 4, [][]int{{0}, {2}, {4}, {6}}},
		{BindAuto, 5, [][]int{{0}, {2}, {4}, {6}, {0}}}, // oversubscribed: one CPU each, in turn
		{BindCore, 5, [][]int{{0}, {2}, {4}, {6}, {0}}},
	}
	for _, tt := range tests {
		got := tt.bind.RankCPUs(tt.np, cpus)
		if len(got) != len(tt.want) {
			t.Errorf("bind %d, %d ranks: %v, want %v", tt.bind, tt.np, got, tt.want)
			continue
		}
		for r := range got {
			if !slices.Equal(got[r], tt.want[r]) {
				t.Errorf("bind %d, %d ranks: rank %d gets %v, want %v", tt.bind, tt.np, r, got[r], tt.want[r])
			}
		}
	}
}
