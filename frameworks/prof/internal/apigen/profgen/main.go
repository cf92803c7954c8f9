// Command profgen writes frameworks/prof's base_gen.go, functions_gen.go
// and record_gen.go (the plugin layer's recorders) from pmpi/api.go
// (make generate).
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
	rec, err := apigen.Recorder(fns)
	if err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	for name, src := range map[string][]byte{"base_gen.go": base, "functions_gen.go": table, "record_gen.go": rec} {
		if err := os.WriteFile(filepath.Join(out, name), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
