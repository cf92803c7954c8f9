package wrappergen

import (
	"fmt"
	"strings"
)

// piece is a run of Go text or one {{...}} macro of a wrapper file.
type piece struct {
	text  string // the Go text, or the macro's content without the braces
	macro bool
	line  int // line of the token's first byte
}

// lex splits src into text and macros. A macro runs from "{{" to the next
// "}}" on any line; Go code that needs "{{" (a composite literal of
// composite literals) writes "{ {", which gofmt joins in the output.
func lex(name, src string) ([]piece, error) {
	var toks []piece
	line := 1
	for len(src) > 0 {
		i := strings.Index(src, "{{")
		if i < 0 {
			toks = append(toks, piece{text: src, line: line})
			break
		}
		if i > 0 {
			toks = append(toks, piece{text: src[:i], line: line})
			line += strings.Count(src[:i], "\n")
		}
		j := strings.Index(src[i+2:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("%s:%d: {{ is not closed by }}", name, line)
		}
		body := src[i+2 : i+2+j]
		toks = append(toks, piece{text: body, macro: true, line: line})
		line += strings.Count(body, "\n")
		src = src[i+2+j+2:]
	}
	return toks, nil
}
