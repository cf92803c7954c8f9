package mca

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/params"
)

// Options configure a System.
type Options struct {
	// Registry holds the frameworks and components; nil means the default one.
	Registry *Registry
	// Logger is the root logger; nil means NewLogger().
	Logger hclog.Logger
	// QuietWarnings logs parameter warnings at debug level: in a job, rank 0
	// reports them and the other ranks stay quiet.
	QuietWarnings bool
	// Params registers parameters that belong to no framework, such as the
	// MPI layer's own; nil registers none.
	Params func(*params.Registry) error
}

// System is one process's component model: every registered framework with
// its components instantiated and their parameters registered. Resolve
// reads the parameter sources; then each framework can be opened.
type System struct {
	params     *params.Registry
	log        hclog.Logger
	quiet      bool
	verbose    params.Param[params.Verbosity]
	compPath   params.Param[string]
	frameworks []*Framework
	byName     map[string]*Framework
	snap       *params.Snapshot
	extraErr   error // from Options.Params, reported by Resolve
}

// New instantiates every registered framework and component and runs the
// register-params hooks. It reads no parameter source: gompi_info and the
// documentation generator use it as it is.
func New(opts Options) *System {
	reg := opts.Registry
	if reg == nil {
		reg = DefaultRegistry()
	}
	log := opts.Logger
	if log == nil {
		log = NewLogger()
	}
	preg := params.NewRegistry()
	s := &System{params: preg, log: log, quiet: opts.QuietWarnings, byName: map[string]*Framework{}}
	core := preg.Scope("mca", "base")
	s.verbose = core.Verbosity(params.Spec{
		Name:    "verbose",
		Default: "warn",
		Level:   3,
		Help:    "Log level of the component model itself: parameter warnings, and plugin discovery; a component's loading and selection are logged under its framework's *_base_verbose (btl_base_verbose, ...)",
	})
	s.compPath = core.String(params.Spec{
		Name:    "component_path",
		Default: componentPathDefault,
		Level:   2,
		Help: "Where out-of-process components are found: ':'-separated directories searched for " +
			"executables named mca_<framework>_<component>, the first directory winning a name. " +
			"$prefix is the installation's directory and ~ the home directory; empty finds none. " +
			"A built-in component beats a plugin of the same name",
	})
	if err := core.Err(); err != nil {
		panic(err) // a fixed, valid definition: failing here is a bug in mca
	}
	for _, spec := range reg.Frameworks() {
		f := newFramework(spec, reg.Components(spec.Name), preg, log)
		s.frameworks = append(s.frameworks, f)
		s.byName[spec.Name] = f
	}
	if opts.Params != nil {
		s.extraErr = opts.Params(preg)
	}
	return s
}

// Load is New followed by Resolve.
func Load(opts Options, in params.Inputs) (*System, error) {
	s := New(opts)
	if err := s.Resolve(in); err != nil {
		return nil, err
	}
	return s, nil
}

// Resolve reads the parameter sources once, sets every framework's log
// level and selection, and reports parameter warnings. A bad value, a
// malformed selection or an unknown component in an include list is an error.
func (s *System) Resolve(in params.Inputs) error {
	if s.snap != nil {
		return errors.New("mca: parameters already resolved")
	}
	if s.extraErr != nil {
		return fmt.Errorf("mca: registering parameters: %w", s.extraErr)
	}
	// The component path decides which plugins, and so which parameters,
	// exist; a bad value elsewhere is reported by Resolve below.
	var debug []string
	if peek, err := s.params.Peek(in); err == nil {
		debug = s.loadPlugins(s.compPath.Get(peek))
	}
	snap, err := s.params.Resolve(in)
	if err != nil {
		return fmt.Errorf("mca: %w", err)
	}
	s.log.SetLevel(LogLevel(s.verbose.Get(snap)))
	warn := s.log.Warn
	if s.quiet {
		warn = s.log.Debug
	}
	for _, d := range debug {
		s.log.Debug(d)
	}

	for _, w := range snap.Warnings() {
		warn(w)
	}
	var errs []error
	for _, f := range s.frameworks {
		warnings, err := f.resolve(snap)
		for _, w := range warnings {
			warn(w)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("mca: %w", errors.Join(errs...))
	}
	s.snap = snap
	return nil
}

// Params is the parameter registry.
func (s *System) Params() *params.Registry { return s.params }

// Snapshot is the resolved parameters; nil before Resolve.
func (s *System) Snapshot() *params.Snapshot { return s.snap }

// Logger is the root logger.
func (s *System) Logger() hclog.Logger { return s.log }

// Frameworks lists the frameworks sorted by name.
func (s *System) Frameworks() []*Framework { return s.frameworks }

// Framework finds a framework by name.
func (s *System) Framework(name string) (*Framework, error) {
	if f, ok := s.byName[name]; ok {
		return f, nil
	}
	names := make([]string, len(s.frameworks))
	for i, f := range s.frameworks {
		names[i] = f.Name()
	}
	return nil, fmt.Errorf("mca: unknown framework %q (known: %s)", name, listOrNone(names))
}

// Close closes every framework, in reverse order.
func (s *System) Close() error {
	var errs []error
	for i := len(s.frameworks) - 1; i >= 0; i-- {
		errs = append(errs, s.frameworks[i].Close())
	}
	return errors.Join(errs...)
}
