package coll_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

func TestRulesLookupFirstMatchWins(t *testing.T) {
	rules, err := coll.NewRules([]coll.Rule{
		{Collective: "bcast", Ranks: coll.Range{Min: 1, Max: 4}, Bytes: coll.Range{Min: 0, Max: 1023}, Algorithm: "linear"},
		{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Range{Min: 0, Max: 1 << 20}, Algorithm: "binomial"},
		{Collective: "bcast", Ranks: coll.Range{Min: 8, Max: -1}, Bytes: coll.Any, Algorithm: "pipeline", Segsize: 8192},
		{Collective: "allreduce", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "ring"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		coll  string
		ranks int
		bytes int64
		want  string // "" for no match
		seg   int
	}{
		{"bcast", 4, 1023, "linear", 0},
		{"bcast", 4, 1024, "binomial", 0},
		{"bcast", 5, 0, "binomial", 0},
		{"bcast", 4, 2 << 20, "", 0},
		{"bcast", 8, 2 << 20, "pipeline", 8192},
		{"allreduce", 1000, 1 << 40, "ring", 0},
		{"reduce", 4, 8, "", 0},
		{"nonesuch", 4, 8, "", 0},
	} {
		r, ok := rules.Lookup(tc.coll, tc.ranks, tc.bytes)
		if ok != (tc.want != "") || r.Algorithm != tc.want || r.Segsize != tc.seg {
			t.Errorf("Lookup(%s, %d, %d) = %+v, %v; want %q segsize %d", tc.coll, tc.ranks, tc.bytes, r, ok, tc.want, tc.seg)
		}
	}
	if got := rules.For("bcast", 8); len(got) != 2 || got[0].Algorithm != "binomial" || got[1].Algorithm != "pipeline" {
		t.Errorf("For(bcast, 8) = %+v, want binomial then pipeline", got)
	}
	var none *coll.Rules
	if _, ok := none.Lookup("bcast", 4, 0); ok || none.Len() != 0 || none.For("bcast", 4) != nil {
		t.Error("a nil table matched")
	}
}

func TestNewRulesRefusesBadTables(t *testing.T) {
	ok := coll.Rule{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "linear"}
	for _, tc := range []struct {
		name string
		edit func(*coll.Rule)
		say  string
	}{
		{"unknown collective", func(r *coll.Rule) { r.Collective = "bcats" }, `unknown collective "bcats"`},
		{"empty ranks", func(r *coll.Rule) { r.Ranks = coll.Range{Min: 5, Max: 4} }, "ends before it starts"},
		{"zero ranks", func(r *coll.Rule) { r.Ranks = coll.Range{Min: 0, Max: 0} }, "at least 1 rank"},
		{"negative bytes", func(r *coll.Rule) { r.Bytes = coll.Range{Min: -1, Max: 4} }, "starts below 0"},
		{"no algorithm", func(r *coll.Rule) { r.Algorithm = " " }, "no algorithm"},
		{"negative segsize", func(r *coll.Rule) { r.Segsize = -2 }, "negative segment size"},
	} {
		bad := ok
		tc.edit(&bad)
		_, err := coll.NewRules([]coll.Rule{ok, bad})
		if !errors.Is(err, coll.ErrBadRules) || !strings.Contains(err.Error(), tc.say) || !strings.Contains(err.Error(), "rule 2") {
			t.Errorf("%s: error %v, want ErrBadRules saying rule 2 and %q", tc.name, err, tc.say)
		}
	}
}
