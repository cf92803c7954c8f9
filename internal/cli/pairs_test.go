package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestExtractPairs(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.IntP("np", "n", 1, "")
	fs.Bool("parsable", false, "")
	tests := []struct {
		args  string
		pairs []Pair
		rest  string
		bad   string
	}{
		{"--param btl", nil, "", "--param needs a framework and a component, as in --param btl tcp"},
		{"-mca btl", nil, "", "-mca needs a name and a value, as in -mca btl tcp,self"},
		{"--mca btl tcp,self -n 4 prog --mca x y", []Pair{{"--mca", "btl", "tcp,self"}}, "-n 4 prog --mca x y", ""},
		{"-mca a 1 --parsable --mca b 2", []Pair{{"-mca", "a", "1"}, {"--mca", "b", "2"}}, "--parsable", ""},
		{"--np=2 --mca a '' -- --mca b 2", []Pair{{"--mca", "a", "''"}}, "--np=2 -- --mca b 2", ""},
		{"--mca a", nil, "", "needs a name and a value"},
	}
	for _, tt := range tests {
		pairs, rest, err := ExtractPairs(fs, strings.Fields(tt.args), MCAFlag,
			PairFlag{Names: []string{"--param"}, Takes: "a framework and a component", Example: "btl tcp"})
		if tt.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("%q: err %v, want %q", tt.args, err, tt.bad)
			}
			continue
		}
		if err != nil || !slices.Equal(pairs, tt.pairs) || strings.Join(rest, " ") != tt.rest {
			t.Errorf("%q: got %v %q %v, want %v %q", tt.args, pairs, rest, err, tt.pairs, tt.rest)
		}
	}
}

func TestSettingsRejectsConflicts(t *testing.T) {
	got, err := Settings([]Pair{{"--mca", "a", "1"}, {"--mca", "a", "1"}, {"--mca", "b", "2"}})
	if err != nil || len(got) != 2 {
		t.Errorf("repeated identical setting: %v %v", got, err)
	}
	_, err = Settings([]Pair{{"--mca", "a", "1"}, {"-mca", "a", "2"}})
	if err == nil || !strings.Contains(err.Error(), `-mca a given twice with different values ("1" and "2")`) {
		t.Errorf("conflict: %v", err)
	}
	_, err = Settings([]Pair{{"--mca", "", "5"}})
	if err == nil || !strings.Contains(err.Error(), `--mca "" "5": the parameter name is empty; write --mca NAME VALUE`) {
		t.Errorf("empty name: %v", err)
	}
}
