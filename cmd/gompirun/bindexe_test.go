package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBindExe: bound ranks start through gompi-bind when it is an
// executable file beside gompirun, through gompirun itself otherwise.
func TestBindExe(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "gompirun")
	shim := filepath.Join(dir, "gompi-bind")
	if got := bindExe(exe); got != exe {
		t.Errorf("no gompi-bind: %q, want gompirun itself", got)
	}
	if err := os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := bindExe(exe); got != exe {
		t.Errorf("gompi-bind not executable: %q, want gompirun itself", got)
	}
	if err := os.Chmod(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := bindExe(exe); got != shim {
		t.Errorf("%q, want gompi-bind", got)
	}
	if err := os.Remove(shim); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := bindExe(exe); got != exe {
		t.Errorf("gompi-bind a directory: %q, want gompirun itself", got)
	}
}
