package trace

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends e as a JSON object. It is written by hand because a
// rank 0 may write millions of events, and the reflection of
// encoding/json costs several times more.
func appendJSON(b []byte, e traceEvent) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, e.Name)
	if e.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendString(b, e.Cat)
	}
	b = append(b, `,"ph":`...)
	b = appendString(b, e.Ph)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, e.Ts)
	if e.Ph == "X" {
		b = append(b, `,"dur":`...)
		b = appendMicros(b, e.Dur)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.Pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(e.Tid), 10)
	if e.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, e.ID, 10)
	}
	if e.Bp != "" {
		b = append(b, `,"bp":`...)
		b = appendString(b, e.Bp)
	}
	if e.S != "" {
		b = append(b, `,"s":`...)
		b = appendString(b, e.S)
	}
	if len(e.Args) > 0 {
		b = append(b, `,"args":{`...)
		for i, a := range e.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a.key)
			b = append(b, ':')
			if a.isNum {
				b = strconv.AppendInt(b, int64(a.num), 10)
			} else {
				b = appendString(b, a.str)
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendMicros writes ns as microseconds with three decimals, exactly.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b, ns = append(b, '-'), -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		q, _ := json.Marshal(s) // replaces invalid bytes, as JSON requires
		return append(b, q...)
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
