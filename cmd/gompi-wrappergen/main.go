// Command gompi-wrappergen writes a prof component from wrapper files: Go
// code with {{...}} macros saying what to do around each pmpi.API call, in
// the manner of MPICH/MPE's wrappergen. See docs/wrappergen.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/internal/wrappergen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gompi-wrappergen:", err)
		os.Exit(1)
	}
}

type options struct {
	wrappers []string
	out      string
	name     string
	pkg      string
}

func run(args []string, stdout, stderr io.Writer) error {
	var opt options
	cmd := &cobra.Command{
		Use:   "gompi-wrappergen -w FILE.w [-w FILE.w]... -o DIR/FILE.go -name NAME [-package PKG]",
		Short: "Generate a prof component from wrapper files",
		Long: `gompi-wrappergen reads wrapper files (Go code with {{...}} macros, described in
docs/wrappergen.md) and writes one Go file holding a prof component named NAME,
selected at run time with --mca prof NAME. Several -w files nest in the order
given: the first is outermost. The package defaults to the name of -o's directory.`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return generate(opt, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&opt.wrappers, "wrapper", "w", nil, "wrapper file (repeatable; the first is outermost)")
	fl.StringVarP(&opt.out, "output", "o", "", "the Go file to write")
	fl.StringVar(&opt.name, "name", "", "the component's name: --mca prof NAME selects it")
	fl.StringVar(&opt.pkg, "package", "", "the file's package (default: the name of -o's directory)")
	for _, f := range []string{"wrapper", "output", "name"} {
		_ = cmd.MarkFlagRequired(f)
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetArgs(longFlags(args))
	return cmd.Execute()
}

// longFlags accepts wrappergen's single-dash long flags (-name, -package)
// as well as the double-dash ones.
func longFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		for _, f := range []string{"name", "package", "wrapper", "output"} {
			if a == "-"+f || strings.HasPrefix(a, "-"+f+"=") {
				out[i] = "-" + a
			}
		}
	}
	return out
}

func generate(opt options, stderr io.Writer) error {
	pkg := opt.pkg
	if pkg == "" {
		abs, err := filepath.Abs(opt.out)
		if err != nil {
			return err
		}
		pkg = filepath.Base(filepath.Dir(abs))
	}
	cfg := wrappergen.Config{Package: pkg, Component: opt.name}
	for _, w := range opt.wrappers {
		src, err := os.ReadFile(w)
		if err != nil {
			return err
		}
		cfg.Wrappers = append(cfg.Wrappers, wrappergen.Wrapper{Name: w, Src: src})
	}
	out, err := wrappergen.Generate(cfg)
	if err != nil {
		if opt.pkg == "" && strings.Contains(err.Error(), "package name") {
			err = errors.Join(err, errors.New("give the package with -package"))
		}
		return err
	}
	for _, w := range out.Warnings {
		fmt.Fprintln(stderr, "gompi-wrappergen: warning:", w)
	}
	if err := os.MkdirAll(filepath.Dir(opt.out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(opt.out, out.Code, 0o644)
}
