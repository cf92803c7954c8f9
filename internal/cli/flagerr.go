package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// wants says what a flag of each of pflag's value types takes.
var wants = map[string]string{
	"int":      "a whole number",
	"int64":    "a whole number",
	"uint":     "a whole number, 0 or more",
	"float64":  "a number",
	"duration": "a duration such as 500ms, 30s or 2m",
	"bool":     "true or false",
}

// FlagError is a cobra flag error function (Command.SetFlagErrorFunc).
// It rewrites pflag's error for a value its flag cannot take, which
// quotes the parser ("strconv.ParseInt: parsing "x": invalid syntax"),
// into the flag, the value and what the flag takes; other errors pass
// unchanged.
func FlagError(_ *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	f := bad.GetFlag()
	if want, ok := wants[f.Value.Type()]; ok {
		if strings.Contains(f.Usage, "`") { // the usage names the value: SECONDS, N
			what, _ := pflag.UnquoteUsage(f)
			want += " (" + what + ")"
		}
		return fmt.Errorf("--%s %q: want %s", f.Name, bad.GetValue(), want)
	}
	return fmt.Errorf("--%s %q: %w", f.Name, bad.GetValue(), bad.Unwrap())
}
