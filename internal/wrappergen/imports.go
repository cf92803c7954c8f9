package wrappergen

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// importSpec is one import of the generated file.
type importSpec struct {
	name, path string
}

func (s importSpec) String() string {
	if s.name == "" {
		return strconv.Quote(s.path)
	}
	return s.name + " " + strconv.Quote(s.path)
}

// cutImports removes the import declarations from a wrapper file's
// file-level code, keeping its newlines so that lines still map to the
// wrapper file, and returns them: Go wants every import before the first
// declaration, and the generated file has one import block for all.
func cutImports(src string) (string, []string) {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(f, []byte(src), nil, 0)
	out := []byte(src)
	var decls []string
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.IMPORT {
			continue
		}
		start, end := f.Offset(pos), len(src)
		pos, tok, _ = s.Scan()
		if tok == token.LPAREN {
			for tok != token.RPAREN && tok != token.EOF {
				pos, tok, _ = s.Scan()
			}
			if tok == token.RPAREN {
				end = f.Offset(pos) + 1
			}
		} else {
			for tok != token.SEMICOLON && tok != token.EOF {
				pos, tok, _ = s.Scan()
			}
			if tok == token.SEMICOLON {
				end = f.Offset(pos)
			}
		}
		decls = append(decls, src[start:end])
		for i := start; i < end; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return string(out), decls
}

// parseImports reads import declarations cut from a wrapper file.
func parseImports(wrapper string, decls []string) ([]importSpec, error) {
	if len(decls) == 0 {
		return nil, nil
	}
	src := "package p\n" + strings.Join(decls, "\n")
	f, err := parser.ParseFile(token.NewFileSet(), wrapper, src, parser.ImportsOnly)
	if err != nil {
		return nil, fmt.Errorf("%s: import declarations: %w", wrapper, err)
	}
	var specs []importSpec
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %w", wrapper, im.Path.Value, err)
		}
		s := importSpec{path: path}
		if im.Name != nil {
			s.name = im.Name.Name
		}
		specs = append(specs, s)
	}
	return specs, nil
}
