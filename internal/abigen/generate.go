package main

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// The files generate writes, relative to the module's root.
const (
	abiFile    = "capi/mpi.abi"
	headerFile = "capi/include/mpi.h"
	goFile     = "capi/exports_gen.go"
	constFile  = "capi/handles_gen.go"
	weakFile   = "capi/weak_gen.c"
	docFile    = "docs/c-functions.md"
)

// generate returns the generated files' contents by path.
func generate(root string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(root, abiFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := parseABI(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", abiFile, err)
	}
	impls, err := implementations(filepath.Join(root, "capi"))
	if err != nil {
		return nil, err
	}
	g, err := makeGlue(a, impls)
	if err != nil {
		return nil, err
	}
	files := map[string]string{
		headerFile: header(a),
		goFile:     g.goSrc,
		constFile:  g.constSrc,
		weakFile:   g.weakC,
		docFile:    functionsDoc(a, g),
	}
	for _, path := range []string{goFile, constFile} {
		src, err := format.Source([]byte(files[path]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		files[path] = string(src)
	}
	return files, nil
}

// implementations are the top-level functions in dir's hand-written Go
// files, true for a generic one.
func implementations(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	m := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_gen.go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				m[fd.Name.Name] = fd.Type.TypeParams != nil
			}
		}
	}
	return m, nil
}

func write(root string, files map[string]string) error {
	for path, content := range files {
		if err := os.WriteFile(filepath.Join(root, path), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
