package wrappergen

import (
	"fmt"
	"strings"
)

// origin is where a line of generated code came from: a wrapper file's
// line, or the generator itself (file empty).
type origin struct {
	file string
	line int
}

func (o origin) String() string {
	if o.file == "" {
		return "gompi-wrappergen"
	}
	return fmt.Sprintf("%s:%d", o.file, o.line)
}

// emitter builds Go source and remembers the origin of each line, so that
// a parse error in the output can name the wrapper line that produced it.
type emitter struct {
	b     strings.Builder
	lines []origin // one per line begun
}

// gen writes generator text.
func (e *emitter) gen(format string, a ...any) { e.write(fmt.Sprintf(format, a...), origin{}) }

// write writes s, whose first byte comes from o (o.line counts on with
// each newline). A line takes the origin of the first wrapper text on it.
func (e *emitter) write(s string, o origin) {
	for {
		if len(e.lines) == 0 {
			e.lines = append(e.lines, origin{})
		}
		if cur := &e.lines[len(e.lines)-1]; cur.file == "" && o.file != "" {
			*cur = o
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			e.b.WriteString(s)
			return
		}
		e.b.WriteString(s[:i+1])
		e.lines = append(e.lines, origin{})
		s = s[i+1:]
		if s == "" {
			return
		}
		if o.file != "" {
			o.line++
		}
	}
}

// appendLines writes what o holds, with its origins, starting on a new line.
func (e *emitter) appendLines(o *emitter) {
	e.newline()
	text := o.b.String()
	for i, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		e.write(line, o.lines[i])
	}
	e.newline()
}

// newline ends the current line unless it is empty.
func (e *emitter) newline() {
	if s := e.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		e.write("\n", origin{})
	}
}

// at returns the origin of a line (1-based) of the output: for a line the
// generator wrote, the closest wrapper line before it, whose code most
// likely broke it.
func (e *emitter) at(line int) origin {
	for i := min(line, len(e.lines)) - 1; i >= 0; i-- {
		if e.lines[i].file != "" {
			return e.lines[i]
		}
	}
	return origin{}
}

// trimmed returns e's lines without the blank ones at its start and end:
// the newlines that follow a block's opening macro and precede {{callfn}}.
func (e *emitter) trimmed() *emitter {
	lines := strings.SplitAfter(e.b.String(), "\n")
	lo, hi := 0, len(lines)
	for lo < hi && strings.TrimSpace(lines[lo]) == "" {
		lo++
	}
	for hi > lo && strings.TrimSpace(lines[hi-1]) == "" {
		hi--
	}
	out := &emitter{}
	for i := lo; i < hi; i++ {
		out.write(lines[i], e.lines[i])
	}
	return out
}
