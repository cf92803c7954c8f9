//go:build pmix && cgo

package all

// The pmix ess component links OpenPMIx: only in builds that ask for it.
import _ "github.com/gompi/gompi/components/ess/pmix"
