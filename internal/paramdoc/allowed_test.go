package paramdoc

import (
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// probes are values of each kind that a parameter refusing some values of
// its kind is likely to refuse: the negative, zero, one, odd and huge.
var probes = map[params.Kind][]string{
	params.KindInt:    {"-1", "0", "1", "3", "2147483648", "9223372036854775807"},
	params.KindSize:   {"0", "1", "3", "1048576g"},
	params.KindFloat:  {"-1", "0", "0.0001", "1e300"},
	params.KindString: {""},
	params.KindList:   {""},
}

// TestRefusalsAreStated fails when a parameter refuses a value of its kind
// while its accepted values, in gompi_info and docs/parameters.md, are only
// the kind's ("an integer"): its Range or Accepts must state the rule.
func TestRefusalsAreStated(t *testing.T) {
	sys := mca.New(mca.Options{Logger: hclog.NewNullLogger(), Params: pmpi.RegisterParams})
	for _, d := range sys.Params().Defs() {
		if d.Allowed() != (params.Def{Kind: d.Kind}).Allowed() {
			continue // it says what it accepts
		}
		for _, v := range probes[d.Kind] {
			if err := d.Check(v); err != nil {
				t.Errorf("%s refuses %q (%v) but its accepted values are only %q: give it a Range or Accepts",
					d.Name, v, err, d.Allowed())
				break
			}
		}
	}
}
