// Command profgen writes frameworks/prof's base_gen.go and
// functions_gen.go from pmpi/api.go (make generate).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gompi/gompi/frameworks/prof/internal/apigen"
)

func main() {
	api := flag.String("api", "pmpi/api.go", "the file that declares pmpi.API")
	out := flag.String("out", "frameworks/prof", "the directory to write into")
	flag.Parse()
	if err := run(*api, *out); err != nil {
		fmt.Fprintln(os.Stderr, "profgen:", err)
		os.Exit(1)
	}
}

func run(api, out string) error {
	src, err := os.ReadFile(api)
	if err != nil {
		return err
	}
	fns, err := apigen.Parse(api, src)
	if err != nil {
		return err
	}
	base, err := apigen.Base(fns)
	if err != nil {
		return fmt.Errorf("base: %w", err)
	}
	table, err := apigen.Table(fns)
	if err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, "base_gen.go"), base, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "functions_gen.go"), table, 0o644)
}
