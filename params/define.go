package params

import "fmt"

// Define registers a full definition and returns its typed handle. It is
// for names a Registrar cannot build, such as a framework's selection
// parameter, which is named after the framework alone. T must match d.Kind.
func Define[T any](r *Registry, d Def) (Param[T], error) {
	var zero T
	if want := goType(d.Kind); fmt.Sprintf("%T", zero) != want {
		return Param[T]{}, fmt.Errorf("%w: parameter %s of kind %s has Go type %s, not %T",
			ErrRegistration, d.Name, d.Kind, want, zero)
	}
	if err := r.Register(d); err != nil {
		return Param[T]{}, err
	}
	return Param[T]{name: d.Name}, nil
}

// goType names the Go type a kind parses to.
func goType(k Kind) string {
	switch k {
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindSize:
		return "int64"
	case KindFloat:
		return "float64"
	case KindString, KindEnum:
		return "string"
	case KindList:
		return "[]string"
	case KindVerbosity:
		return "params.Verbosity"
	}
	return "unknown"
}
