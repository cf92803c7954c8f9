// Command gompi_info lists gompi's frameworks, their components and every
// MCA parameter with its current value and where that value came from.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	_ "github.com/gompi/gompi/components/all" // every static framework and component
	"github.com/gompi/gompi/internal/cli"
	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gompi_info:", err)
		os.Exit(1)
	}
}

type options struct {
	level    int
	all      bool
	parsable bool
	json     bool
	tune     []string
}

func run(args []string, stdout, stderr io.Writer) error {
	var opt options
	cmd := &cobra.Command{
		Use:   "gompi_info [--param FRAMEWORK COMPONENT] [--level N | --all] [--parsable | --json] [--mca NAME VALUE]...",
		Short: "Show gompi's frameworks, components and MCA parameters",
		Long: `gompi_info lists gompi's version, each framework with its components, and,
with --param or --all, the MCA parameters with their current values and sources.

  --param FRAMEWORK COMPONENT   parameters of one component; "all" matches every
                                framework or component, "base" the framework's own,
                                "mca base" the component model's own
  --mca NAME VALUE              set a parameter as gompirun --mca would (repeatable)

Values come, highest precedence first, from the override file, --mca, the
environment (GOMPI_MCA_<name>), parameter files (--tune, mca_base_param_files,
~/.gompi/mca-params.conf, <prefix>/etc/gompi-mca-params.conf) and the default.
Out-of-process components found on mca_base_component_path are listed too,
their origin being the executable's path: each is started to describe itself
and stopped at once (docs/plugins.md).
The --parsable format is described in docs/gompi_info.md.`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	cmd.SetFlagErrorFunc(cli.FlagError)
	fl := cmd.Flags()
	fl.IntVarP(&opt.level, "level", "l", 1, "show parameters up to this info level (1-9)")
	fl.BoolVarP(&opt.all, "all", "a", false, "show every framework, component and parameter (level 9 unless --level is given)")
	fl.BoolVar(&opt.parsable, "parsable", false, "one colon-separated record per line, for scripts")
	fl.BoolVar(&opt.parsable, "parseable", false, "same as --parsable")
	fl.BoolVar(&opt.json, "json", false, "JSON output")
	fl.StringArrayVar(&opt.tune, "tune", nil, "read this parameter file first (repeatable)")
	// Documented here; pre-scanned below because each takes two values.
	fl.String("param", "", "FRAMEWORK COMPONENT: show these parameters (takes two values)")
	fl.String("mca", "", "NAME VALUE: set an MCA parameter (takes two values, repeatable)")
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)

	pairs, rest, err := cli.ExtractPairs(fl, args, cli.MCAFlag, paramFlag)
	if err != nil {
		return err
	}
	var mcaPairs, paramPairs []cli.Pair
	for _, p := range pairs {
		if strings.HasSuffix(p.Flag, "mca") {
			mcaPairs = append(mcaPairs, p)
		} else {
			paramPairs = append(paramPairs, p)
		}
	}
	if len(paramPairs) > 1 {
		return errors.New("--param may be given once")
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		f := filter{level: opt.level}
		if opt.all {
			f.framework, f.component = "all", "all"
			if !cmd.Flags().Changed("level") {
				f.level = 9
			}
		}
		if len(paramPairs) == 1 {
			f.framework, f.component = paramPairs[0].Name, paramPairs[0].Value
		}
		return show(cmd.OutOrStdout(), opt, f, mcaPairs)
	}
	cmd.SetArgs(append([]string{}, rest...)) // non-nil: cobra reads os.Args for nil
	return cmd.Execute()
}

// paramFlag is --param (also --params): which parameters to show.
var paramFlag = cli.PairFlag{Names: []string{"--param", "--params"}, Takes: "a framework and a component", Example: "btl tcp"}

func show(w io.Writer, opt options, f filter, mcaPairs []cli.Pair) error {
	if f.level < 1 || f.level > 9 {
		return fmt.Errorf("--level %d: the level must be from 1 to 9", f.level)
	}
	if opt.parsable && opt.json {
		return errors.New("--parsable and --json exclude each other")
	}
	in, err := params.DefaultInputs()
	if err != nil {
		return err
	}
	settings, err := cli.Settings(mcaPairs)
	if err != nil {
		return err
	}
	in.CommandLine = append(in.CommandLine, settings...)
	in.TuneFiles = append(in.TuneFiles, opt.tune...)
	sys, err := mca.Load(mca.Options{Params: pmpi.RegisterParams}, in)
	if err != nil {
		return err
	}
	r, err := buildReport(sys, f)
	if err != nil {
		return err
	}
	switch {
	case opt.json:
		return renderJSON(w, r)
	case opt.parsable:
		renderParsable(w, r)
	default:
		renderPretty(w, r, !opt.all && f.framework != "")
	}
	return nil
}
