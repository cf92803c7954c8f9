package main

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

func TestParseRules(t *testing.T) {
	rules, err := parseRules(strings.NewReader(`
# a comment, then rules
bcast      1-4   0-64k    linear
bcast      8-    1m-      pipeline  32K   # trailing comment
allreduce  *     *        ring
barrier    3     *        dissemination
`), "x.rules")
	if err != nil {
		t.Fatal(err)
	}
	want := []coll.Rule{
		{Collective: "bcast", Ranks: coll.Range{Min: 1, Max: 4}, Bytes: coll.Range{Min: 0, Max: 64 << 10}, Algorithm: "linear"},
		{Collective: "bcast", Ranks: coll.Range{Min: 8, Max: -1}, Bytes: coll.Range{Min: 1 << 20, Max: -1}, Algorithm: "pipeline", Segsize: 32 << 10},
		{Collective: "allreduce", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "ring"},
		{Collective: "barrier", Ranks: coll.Range{Min: 3, Max: 3}, Bytes: coll.Any, Algorithm: "dissemination"},
	}
	got := rules.All()
	if len(got) != len(want) {
		t.Fatalf("%d rules, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rule %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

func TestParseRulesErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ line, say string }{
		{"bcats * * linear", `unknown collective "bcats"`},
		{"bcast * * ", "3 fields, want 4 or 5"},
		{"bcast 4-2 * linear", `ranks "4-2": ends before it starts`},
		{"bcast 0 * linear", "at least 1 rank"},
		{"bcast * 12x linear", `bytes "12x"`},
		{"bcast * -5 linear", `bytes "-5"`},
		{"bcast * * pipeline 2g", `segsize "2g"`},
		{"bcast * * linear 1 2", "6 fields"},
		{"bcast * * binomal", `"binomal" is not one of the bcast algorithms: want 0 or auto, 1 or linear`},
		{"scan * * linear", "coll tuned has no algorithms for scan (it has them for barrier, bcast"},
	} {
		_, err := parseRules(strings.NewReader("# header\nallreduce * * ring\n"+tc.line+"\n"), "my.rules")
		if err == nil || !strings.Contains(err.Error(), "my.rules:3: ") || !strings.Contains(err.Error(), tc.say) ||
			!strings.Contains(err.Error(), "collective ranks bytes algorithm [segsize]") {
			t.Errorf("%q: error %v, want my.rules:3, %q and the format", tc.line, err, tc.say)
		}
	}
}
