package plugins_test

import (
	"os"
	"testing"
)

// TestMain removes what the tests built. The suites of this package
// build lazily (profBuild); a suite that needs its own cleanup adds it
// here.
func TestMain(m *testing.M) {
	code := m.Run()
	removeProfBuild()
	os.Exit(code)
}
