package plugins_test

import (
	"os"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
)

// TestMain skips the package under -short and removes what the tests
// built. The suites of this package build lazily (profBuild); a suite
// that needs its own cleanup adds it here.
func TestMain(m *testing.M) {
	jobtest.SkipUnderShort()
	code := m.Run()
	removeProfBuild()
	os.Exit(code)
}
