package params

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// errSyntax is returned by the kind parsers when the text simply is not of
// the kind; Def.Allowed then says everything there is to say.
var errSyntax = errors.New("syntax")

// badValue says why a text was rejected for a parameter, without naming the
// parameter or where the text came from: callers add that.
type badValue struct {
	allowed string // the accepted values, when the text did not parse
	detail  error  // why it did not parse, beyond Allowed (nil or errSyntax: nothing to add)
	invalid error  // the Validate error, when it parsed but was rejected
}

// String completes "value "x" from <source>" or "default "x"".
func (b *badValue) String() string {
	if b.invalid != nil {
		return ": " + b.invalid.Error()
	}
	s := " is not " + b.allowed
	if b.detail != nil && !errors.Is(b.detail, errSyntax) {
		s += " (" + b.detail.Error() + ")"
	}
	return s
}

// check parses raw strictly for d and runs d.Validate on the result.
func check(d *Def, raw string) (any, *badValue) {
	v, err := parseKind(d, raw)
	if err != nil {
		allowed := d.Allowed()
		if d.Range != nil {
			// Text that is no number is told the kind as well as the range.
			allowed = Def{Kind: d.Kind}.Allowed() + ", " + d.Range.String()
		}
		return nil, &badValue{allowed: allowed, detail: err}
	}
	if d.Range != nil {
		if err := d.Range.check(v); err != nil {
			return nil, &badValue{invalid: err}
		}
	}
	if d.Validate != nil {
		if err := d.Validate(v); err != nil {
			return nil, &badValue{invalid: err}
		}
	}
	return v, nil
}

// Check says why raw is not a valid value of d, or nil when it is: what
// setting it anywhere would say after the parameter's name and source.
func (d Def) Check(raw string) error {
	if _, bad := check(&d, raw); bad != nil {
		return errors.New(strings.TrimPrefix(bad.String(), ": "))
	}
	return nil
}

func parseKind(d *Def, raw string) (any, error) {
	if d.Kind == KindString {
		return raw, nil
	}
	s := strings.TrimSpace(raw)
	switch d.Kind {
	case KindBool:
		return parseBool(s)
	case KindInt:
		return parseInt(s)
	case KindSize:
		return parseSize(s)
	case KindFloat:
		return parseFloat(s)
	case KindList:
		return parseList(s)
	case KindEnum:
		return parseEnum(d.Values, s)
	case KindVerbosity:
		return parseVerbosity(s)
	}
	return nil, fmt.Errorf("unknown kind %v", d.Kind)
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, errSyntax
}

// parseInt accepts base 10 with an optional sign, or 0x hex (also signed).
// Unlike strconv.ParseInt with base 0 it rejects octal, binary and underscores.
func parseInt(s string) (int, error) {
	sign, body := "", s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		sign, body = body[:1], body[1:]
	}
	base := 10
	if len(body) > 2 && (body[:2] == "0x" || body[:2] == "0X") {
		base, body = 16, body[2:]
	}
	if body == "" || !allDigits(body, base) {
		return 0, errSyntax
	}
	n, err := strconv.ParseInt(sign+body, base, strconv.IntSize)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("out of range for a %d-bit integer", strconv.IntSize)
		}
		return 0, errSyntax
	}
	return int(n), nil
}

func allDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
		case base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return false
		}
	}
	return true
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			s = s[:len(s)-1]
		}
	}
	if s == "" || !allDigits(s, 10) {
		return 0, errSyntax
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, errors.New("overflows a 64-bit size")
	}
	return n * mult, nil
}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("out of range")
		}
		return 0, errSyntax
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}

// parseList returns nil for empty input, so "no items" has one representation.
func parseList(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	items := strings.Split(s, ",")
	for i, it := range items {
		items[i] = strings.TrimSpace(it)
		if items[i] == "" {
			return nil, fmt.Errorf("item %d is empty", i+1)
		}
	}
	return items, nil
}

func parseEnum(values []EnumValue, s string) (string, error) {
	for _, v := range values {
		if strings.EqualFold(v.Name, s) {
			return v.Name, nil
		}
	}
	return "", errSyntax
}

func parseVerbosity(s string) (Verbosity, error) {
	switch strings.ToLower(s) {
	case "none":
		return VerboseNone, nil
	case "error":
		return VerboseError, nil
	case "warn":
		return VerboseWarn, nil
	case "info":
		return VerboseInfo, nil
	case "debug":
		return VerboseDebug, nil
	case "trace":
		return VerboseTrace, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errSyntax
	}
	if n < int(VerboseNone) || n > int(VerboseMax) {
		return 0, errors.New("out of range")
	}
	return Verbosity(n), nil
}
