// Package params is gompi's MCA parameter system: typed registration,
// layered sources (command line, environment, parameter files, defaults),
// strict validation and per-value provenance.
//
// Components register parameters in their register-params hook through a
// Registrar scoped to their framework and name. Once every parameter is
// registered, Registry.Resolve reads every source once and returns an
// immutable Snapshot that any goroutine may read.
package params

import "errors"

// Sentinel errors, usable with errors.Is.
var (
	// ErrInvalidValue marks a value that does not parse or validate.
	ErrInvalidValue = errors.New("invalid parameter value")
	// ErrUnknownParam marks a name that no registered parameter has.
	ErrUnknownParam = errors.New("unknown parameter")
	// ErrRegistration marks a bad or conflicting registration (a programming error).
	ErrRegistration = errors.New("bad parameter registration")
)

// Kind is a parameter's value type.
type Kind int

// The parameter kinds.
const (
	KindBool      Kind = iota + 1 // true/false/1/0/yes/no
	KindInt                       // decimal, or hex with 0x
	KindSize                      // bytes, with optional k/m/g suffix (powers of 1024)
	KindFloat                     // decimal floating point
	KindString                    // any text
	KindList                      // comma-separated names, whitespace trimmed
	KindEnum                      // one of a fixed set of names
	KindVerbosity                 // a log level: none, error, warn, info, debug, trace, or -1..100
)

// EnumValue is one allowed value of an enum parameter.
type EnumValue struct {
	Name string
	Help string
}

// Def is the definition of a registered parameter.
type Def struct {
	Name       string      // full name <framework>_<component>_<var>, lower snake case
	Framework  string      // owning framework ("mca" for the core's own)
	Component  string      // owning component ("base" for framework-level ones)
	Kind       Kind        //
	Default    string      // textual default; must be a valid value
	Help       string      // one or more sentences; required
	Level      int         // info level 1-9 (1-3 user, 4-6 tuner, 7-9 developer)
	Synonyms   []string    // other full names accepted silently
	Deprecated []string    // old full names accepted with a one-time warning naming Name
	Values     []EnumValue // KindEnum only: the allowed names
	// Validate, if set, checks the parsed value (bool, int, int64, float64,
	// string, []string or Verbosity) after parsing succeeded.
	Validate func(v any) error
	// Range, if set, bounds a KindInt, KindSize or KindFloat parameter: it
	// refuses values outside it before Validate runs, and registration makes
	// it Accepts when that is empty.
	Range *Range
	// Accepts, if set, describes the values Validate lets through, for
	// gompi_info and messages: "0 or auto, 1 or linear, 2 or binomial".
	// A parameter whose Validate refuses values of its kind must say which
	// it accepts, here or with Range.
	Accepts string
	// Excludes names (full names) the parameters that may not be set, to
	// anything but their defaults, when this one is: Resolve refuses both.
	Excludes []string
}

// Spec is what a component passes to a Registrar: a Def without its owner,
// with the short name that the Registrar prefixes.
type Spec struct {
	Name       string // short name; the full name is <framework>_<component>_<Name>
	Default    string
	Help       string
	Level      int
	Synonyms   []string // full names
	Deprecated []string // full names
	Values     []EnumValue
	Validate   func(v any) error
	Range      *Range   // the bound of a number; states its accepted values too
	Accepts    string   // what Validate accepts, when it narrows the kind
	Excludes   []string // full names of parameters not to be set with this one
}

// Verbosity is a log level on Open MPI's 0-100 scale; -1 is off.
type Verbosity int

// Named verbosity levels.
const (
	VerboseNone  Verbosity = -1
	VerboseError Verbosity = 0
	VerboseWarn  Verbosity = 20
	VerboseInfo  Verbosity = 40
	VerboseDebug Verbosity = 60
	VerboseTrace Verbosity = 80
	VerboseMax   Verbosity = 100
)

// Setting is one name/value pair given on a command line (--mca name value).
type Setting struct {
	Name  string
	Value string
}

// SourceKind says which layer a value came from.
type SourceKind int

// Source kinds, lowest precedence first.
const (
	SourceDefault SourceKind = iota
	SourceFile
	SourceEnv
	SourceCommandLine
	SourceOverride
)

// Source is where a value came from.
type Source struct {
	Kind SourceKind
	Path string // SourceFile, SourceOverride: the file
	Line int    // SourceFile, SourceOverride: 1-based line
	Name string // the name used when it was a synonym or deprecated name; SourceEnv: the variable
}

// Value is a resolved parameter.
type Value struct {
	Def    Def
	Raw    string // the text as given
	Parsed any    // bool, int, int64, float64, string, []string or Verbosity
	Source Source
}

// Inputs are the places Resolve reads, besides the process environment.
type Inputs struct {
	CommandLine  []Setting // --mca pairs, highest precedence after the override file
	TuneFiles    []string  // --tune files, highest-precedence files; each must exist
	UserFile     string    // usually ~/.gompi/mca-params.conf; skipped when missing
	SystemFile   string    // <prefix>/etc/gompi-mca-params.conf; skipped when missing
	OverrideFile string    // <prefix>/etc/gompi-mca-params-override.conf; locks values
	// Checked says that a launcher already resolved these same inputs and
	// reported their warnings: Resolve returns none, so that no rank repeats
	// them. Errors are still returned.
	Checked bool
}
