package params

import "fmt"

// IntIn returns a Spec.Validate for a KindInt parameter: lo to hi.
func IntIn(lo, hi int) func(any) error {
	return func(v any) error {
		if n := v.(int); n < lo || n > hi {
			return fmt.Errorf("must be %d to %d", lo, hi)
		}
		return nil
	}
}

// SizeIn returns a Spec.Validate for a KindSize parameter: lo to hi bytes.
func SizeIn(lo, hi int64) func(any) error {
	return func(v any) error {
		if n := v.(int64); n < lo || n > hi {
			return fmt.Errorf("must be %d to %d bytes", lo, hi)
		}
		return nil
	}
}
