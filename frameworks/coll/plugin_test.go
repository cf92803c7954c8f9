package coll

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/coll/collpb"
)

func TestRulesCrossTheWireAndNonsenseIsRefused(t *testing.T) {
	in, err := NewRules([]Rule{
		{Collective: "bcast", Ranks: Range{Min: 2, Max: 8}, Bytes: Range{Min: 64, Max: -1}, Algorithm: "pipeline", Segsize: 4096},
		{Collective: "allreduce", Ranks: Any, Bytes: Range{Min: 0, Max: 0}, Algorithm: "ring"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rulesFromPB(RulesToPB(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.All(), in.All(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("after the wire %+v, want %+v", got, want)
	}
	neg := int64(-3)
	for _, tc := range []struct {
		name string
		rule *collpb.Rule
		say  string
	}{
		{"unknown collective", &collpb.Rule{Collective: "bcats", Algorithm: "linear"}, `unknown collective "bcats"`},
		{"negative max", &collpb.Rule{Collective: "bcast", MaxBytes: &neg, Algorithm: "linear"}, "max_bytes -3"},
		{"no algorithm", &collpb.Rule{Collective: "bcast"}, "no algorithm"},
		{"huge segment", &collpb.Rule{Collective: "bcast", Algorithm: "pipeline", Segsize: 1 << 50}, "too large"},
	} {
		_, err := rulesFromPB(&collpb.RuleSet{Rules: []*collpb.Rule{tc.rule}})
		if !errors.Is(err, ErrBadRules) || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%s: error %v, want ErrBadRules saying %q", tc.name, err, tc.say)
		}
	}
}
