package cli

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// onlySlow is a flag value that takes only "slow".
type onlySlow struct{}

func (onlySlow) String() string { return "slow" }
func (onlySlow) Type() string   { return "mode" }
func (onlySlow) Set(v string) error {
	if v != "slow" {
		return errors.New("want slow")
	}
	return nil
}

func TestFlagError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--np", "x"}, `--np "x": want a whole number (N)`},
		{[]string{"-n", "2.5"}, `--np "2.5": want a whole number (N)`},
		{[]string{"--wait", "soon"}, `--wait "soon": want a duration such as 500ms, 30s or 2m`},
		{[]string{"--ratio", "half"}, `--ratio "half": want a number`},
		{[]string{"--quiet=maybe"}, `--quiet "maybe": want true or false`},
		{[]string{"--mode", "fast"}, `--mode "fast": want slow`}, // a Value of its own says what it takes
		{[]string{"--nosuch"}, "unknown flag: --nosuch"},
	} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }, SilenceErrors: true, SilenceUsage: true}
		cmd.Flags().IntP("np", "n", 0, "start `N` ranks")
		cmd.Flags().Duration("wait", 0, "")
		cmd.Flags().Float64("ratio", 0, "")
		cmd.Flags().Bool("quiet", false, "")
		cmd.Flags().Var(onlySlow{}, "mode", "")
		cmd.SetFlagErrorFunc(FlagError)
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.args, err, tc.want)
		}
	}
}
