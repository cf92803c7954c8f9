package params

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/viper"
)

// How Resolve works: viper answers "what value", params answers "from where".
//
// A fresh viper instance per Resolve holds the layers it understands:
// defaults (SetDefault), environment variables (BindEnv with the full
// name's variable first, then synonyms' and deprecated names' variables),
// parameter files (MergeConfigMap, lowest precedence first, keys already
// mapped to full names) and the command line (Set). Each value is read once
// with GetString and parsed strictly here, because viper's casts are lenient.
//
// Viper cannot say which layer a value came from, so the resolver keeps the
// raw layers it fed to viper and walks them in the same precedence order
// (tracked) to find the source: the env variable, the file and line, or the
// command line. A test asserts that both agree. The override file is not
// given to viper: the resolver applies it on top, because it locks values
// and its lock warnings need the source it shadows.

// rawValue is a text and where it came from.
type rawValue struct {
	raw string
	src Source
}

// layer maps full names to their values in one file, or on the command line.
type layer map[string]rawValue

// note is a tolerated problem; unknown-name notes become errors wrapping
// ErrUnknownParam when mca_base_strict is true.
type note struct {
	msg     string
	unknown bool
}

// view is a frozen copy of a registry, taken once so that Resolve does not
// hold the registry's lock while it reads files.
type view struct {
	defs   []Def             // sorted like Registry.Defs
	byName map[string]*Def   // full name → definition in defs
	full   map[string]string // every accepted name → full name
}

func (r *Registry) freeze() *view {
	v := &view{defs: r.Defs(), byName: map[string]*Def{}, full: map[string]string{}}
	for i := range v.defs {
		d := &v.defs[i]
		v.byName[d.Name] = d
		for _, n := range allNames(d) {
			v.full[n] = d.Name
		}
	}
	return v
}

// resolver holds the state of one Resolve call.
type resolver struct {
	*view
	cmdline    layer
	files      []layer // highest precedence first
	override   layer
	notes      []note
	errs       []error
	deprecated map[string]bool // deprecated names already warned about
	checked    bool            // a launcher reported the warnings already
}

func newResolver(v *view) *resolver {
	return &resolver{view: v, cmdline: layer{}, override: layer{}, deprecated: map[string]bool{}}
}

// Resolve reads every source once and returns an immutable snapshot.
// It returns every error found, joined, and no snapshot if there is one.
func (r *Registry) Resolve(in Inputs) (*Snapshot, error) {
	res := newResolver(r.freeze())
	res.checked = in.Checked
	res.collect(in)
	v, err := res.store()
	if err != nil {
		return nil, err
	}
	values := res.evaluate(v)
	res.exclusions(values)
	return res.finish(values)
}

// Peek resolves the parameters registered so far as Resolve would, but
// neither warns about nor refuses names that no parameter has yet: it reads
// the values that decide what else gets registered (the component path says
// where plugins, and so their parameters, are found). Resolve must still run
// once everything is registered.
func (r *Registry) Peek(in Inputs) (*Snapshot, error) {
	res := newResolver(r.freeze())
	res.collect(in)
	v, err := res.store()
	if err != nil {
		return nil, err
	}
	values := res.evaluate(v)
	res.notes = nil
	return res.finish(values)
}

// collect reads every layer, in precedence order so that warnings about a
// name come from its most important use first.
func (r *resolver) collect(in Inputs) {
	if in.OverrideFile != "" {
		r.override = r.readLayer("override file", in.OverrideFile, SourceOverride, false)
	}
	for _, s := range in.CommandLine {
		if full, src, ok := r.accept(s.Name, Source{Kind: SourceCommandLine}); ok {
			r.cmdline[full] = rawValue{s.Value, src} // a later setting replaces an earlier one
		}
	}
	r.scanEnv()
	for _, path := range in.TuneFiles {
		r.addFile("tune file", path, true)
	}
	// mca_base_param_files comes from the command line and environment only:
	// no file has been read yet, so tracked sees just those layers.
	if pf := r.byName[paramFilesName]; pf != nil {
		if files, bad := check(pf, r.tracked(pf).raw); bad == nil { // else evaluate reports it
			for _, path := range files.([]string) {
				r.addFile("parameter file from "+paramFilesName, path, true)
			}
		}
	}
	if in.UserFile != "" {
		r.addFile("user parameter file", in.UserFile, false)
	}
	if in.SystemFile != "" {
		r.addFile("system parameter file", in.SystemFile, false)
	}
}

func (r *resolver) addFile(what, path string, mustExist bool) {
	if l := r.readLayer(what, path, SourceFile, mustExist); l != nil {
		r.files = append(r.files, l)
	}
}

// readLayer reads one parameter file into a layer; it returns nil if the
// file is missing and need not exist, or cannot be read.
func (r *resolver) readLayer(what, path string, kind SourceKind, mustExist bool) layer {
	entries, err := readParamFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil
		}
		r.errs = append(r.errs, fmt.Errorf("%s: %w", what, err))
		// Keep going with the lines that parsed, to report their problems too.
	}
	l := layer{}
	for _, e := range entries {
		full, src, ok := r.accept(e.name, Source{Kind: kind, Path: path, Line: e.line})
		if !ok {
			continue
		}
		if full == paramFilesName {
			r.warnf("parameter %s can be set only on the command line or in the environment; ignoring it %s",
				full, where(src))
			continue
		}
		l[full] = rawValue{e.value, src} // a later line replaces an earlier one
	}
	return l
}

// scanEnv warns about unknown and deprecated names among the GOMPI_MCA_
// variables; their values are read per parameter by envValue and viper.
func (r *resolver) scanEnv() {
	var names []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if name, ok := strings.CutPrefix(k, EnvPrefix); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names) // os.Environ's order is not guaranteed
	for _, n := range names {
		r.accept(n, Source{Kind: SourceEnv, Name: EnvPrefix + n})
	}
}

// accept maps a name used at src to a full name, noting unknown and
// deprecated names. The returned source names the name used when it was a
// synonym or deprecated name (for the environment it already does).
func (r *resolver) accept(name string, src Source) (string, Source, bool) {
	full, ok := r.full[name]
	if !ok {
		msg := fmt.Sprintf("unknown parameter %s %s", quoteShort(name), where(src))
		if s := suggest(name, r.names()); len(s) > 0 {
			msg += "; did you mean " + orList(s) + "?"
		}
		r.notes = append(r.notes, note{msg: msg, unknown: true})
		return "", src, false
	}
	if full == name {
		return full, src, true
	}
	if src.Kind != SourceEnv {
		src.Name = name
	}
	if slices.Contains(r.byName[full].Deprecated, name) && !r.deprecated[name] {
		r.deprecated[name] = true
		r.warnf("parameter %q is deprecated; use %q (set %s)", name, full, where(src))
	}
	return full, src, true
}

func (r *resolver) names() []string {
	names := make([]string, len(r.defs))
	for i, d := range r.defs {
		names[i] = d.Name
	}
	return names
}

func (r *resolver) warnf(format string, args ...any) {
	r.notes = append(r.notes, note{msg: fmt.Sprintf(format, args...)})
}

// envVars lists the variables that can set d, in precedence order.
func envVars(d *Def) []string {
	names := allNames(d)
	for i, n := range names {
		names[i] = EnvPrefix + n
	}
	return names
}

func envValue(d *Def) (rawValue, bool) {
	for _, k := range envVars(d) {
		if v, ok := os.LookupEnv(k); ok {
			return rawValue{v, Source{Kind: SourceEnv, Name: k}}, true
		}
	}
	return rawValue{}, false
}

// tracked finds d's value and source in the layers given to viper, in
// viper's precedence order: command line, environment, files, default.
func (r *resolver) tracked(d *Def) rawValue {
	if v, ok := r.cmdline[d.Name]; ok {
		return v
	}
	if v, ok := envValue(d); ok {
		return v
	}
	for _, f := range r.files {
		if v, ok := f[d.Name]; ok {
			return v
		}
	}
	return rawValue{d.Default, Source{Kind: SourceDefault}}
}

// store loads every layer except the override file into a fresh viper.
func (r *resolver) store() (*viper.Viper, error) {
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.AllowEmptyEnv(true) // GOMPI_MCA_x= is a real, empty value
	for i := range r.defs {
		d := &r.defs[i]
		v.SetDefault(d.Name, d.Default)
		if err := v.BindEnv(append([]string{d.Name}, envVars(d)...)...); err != nil {
			return nil, fmt.Errorf("params: binding %s: %w", d.Name, err)
		}
	}
	for i := len(r.files) - 1; i >= 0; i-- {
		m := make(map[string]any, len(r.files[i]))
		for name, rv := range r.files[i] {
			m[name] = rv.raw
		}
		if err := v.MergeConfigMap(m); err != nil {
			return nil, fmt.Errorf("params: loading parameter files: %w", err)
		}
	}
	for name, rv := range r.cmdline {
		v.Set(name, rv.raw)
	}
	return v, nil
}

// evaluate reads, overrides and parses every parameter's value.
func (r *resolver) evaluate(v *viper.Viper) []Value {
	values := make([]Value, 0, len(r.defs))
	for i := range r.defs {
		d := &r.defs[i]
		raw, src := v.GetString(d.Name), r.tracked(d).src
		if o, ok := r.override[d.Name]; ok {
			if src.Kind != SourceDefault {
				r.warnf("parameter %s: value from %s is ignored because %s locks it", d.Name, src, o.src)
			}
			raw, src = o.raw, o.src
		}
		parsed, bad := check(d, raw)
		if bad != nil {
			r.errs = append(r.errs, &valueError{name: d.Name, raw: raw, src: src, bad: bad})
			continue
		}
		values = append(values, Value{Def: *d, Raw: raw, Parsed: parsed, Source: src})
	}
	return values
}

// exclusions refuses parameters set together that exclude each other
// (Def.Excludes). Set means given anything but the default.
func (r *resolver) exclusions(values []Value) {
	set := map[string]*Value{}
	for i, v := range values {
		if v.Raw != v.Def.Default {
			set[v.Def.Name] = &values[i]
		}
	}
	for _, v := range values {
		if set[v.Def.Name] == nil {
			continue
		}
		for _, n := range v.Def.Excludes {
			if w := set[n]; w != nil {
				r.errs = append(r.errs, exclusionError(fmt.Sprintf(
					"parameters %s (value %s from %s) and %s (value %s from %s) exclude each other; set only one of them",
					v.Def.Name, quoteShort(v.Raw), v.Source, n, quoteShort(w.Raw), w.Source)))
			}
		}
	}
}

// finish sorts notes into warnings and errors and builds the snapshot.
func (r *resolver) finish(values []Value) (*Snapshot, error) {
	strict := false
	snap := &Snapshot{values: values, index: map[string]int{}}
	for i, val := range values {
		if val.Def.Name == strictName {
			strict = val.Parsed.(bool)
		}
		for _, n := range allNames(&values[i].Def) {
			snap.index[n] = i
		}
	}
	for _, n := range r.notes {
		switch {
		case n.unknown && strict:
			r.errs = append(r.errs, unknownError(n.msg+" ("+strictName+" is true)"))
		case r.checked: // the launcher reported it
		default:
			snap.warnings = append(snap.warnings, n.msg)
		}
	}
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return snap, nil
}

// unknownError is an unknown name under mca_base_strict.
type unknownError string

func (e unknownError) Error() string { return string(e) }
func (e unknownError) Unwrap() error { return ErrUnknownParam }

// exclusionError is two parameters set that exclude each other.
type exclusionError string

func (e exclusionError) Error() string { return string(e) }
func (e exclusionError) Unwrap() error { return ErrInvalidValue }

// valueError is a value that does not parse or validate.
type valueError struct {
	name, raw string
	src       Source
	bad       *badValue
}

func (e *valueError) Error() string {
	return fmt.Sprintf("parameter %s: value %s from %s%s", e.name, quoteShort(e.raw), e.src, e.bad)
}

func (e *valueError) Unwrap() []error {
	if e.bad.invalid != nil {
		return []error{ErrInvalidValue, e.bad.invalid}
	}
	return []error{ErrInvalidValue}
}
