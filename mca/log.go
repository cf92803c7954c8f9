package mca

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/params"
)

// LogLevel maps a verbosity (Open MPI's -1..100 scale) to an hclog level:
// below 0 off, 0 error, then warn (1-39), info (40), debug (60) and trace
// (80). A positive number below warn's 20 still means warn: whoever asks
// for some verbosity must not see less than the default.
func LogLevel(v params.Verbosity) hclog.Level {
	switch {
	case v < 0:
		return hclog.Off
	case v == params.VerboseError:
		return hclog.Error
	case v < params.VerboseInfo:
		return hclog.Warn
	case v < params.VerboseDebug:
		return hclog.Info
	case v < params.VerboseTrace:
		return hclog.Debug
	default:
		return hclog.Trace
	}
}

// NewLogger returns the root logger of a process: named "gompi", to
// standard error, with independent levels so that each framework's
// <framework>_base_verbose sets its own.
func NewLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:              "gompi",
		Output:            os.Stderr,
		Level:             hclog.Warn,
		IndependentLevels: true,
	})
}
