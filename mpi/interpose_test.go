package mpi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/prof"
)

// pure are the exported functions of mpi that make no MPI call, and so
// pass through no profiling layer: each only reads or formats what the
// caller holds.
var pure = []string{
	"GetCount",       // the count of elements in a status
	"Request.Active", // whether a request is the zero Request
	"Comm.String",    // fmt.Stringer
	"Comm.IsNull",    // whether a communicator is the zero Comm
	"Group.String",   // fmt.Stringer
}

// TestEveryCallPassesThroughTheStack walks package mpi's source: every
// exported function that makes an MPI call does so through the API value
// that profiling tools wrap (api()), as one call of one API method, so a
// tool sees each user call once; none calls pmpi's implementation around
// the stack; and every API method is reached from some mpi function.
func TestEveryCallPassesThroughTheStack(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	apiNames := map[string]bool{}
	for _, f := range prof.Functions {
		apiNames[f.Name] = true
	}
	reached, seen := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := funcName(fd)
			var calls []string
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if inner, ok := sel.X.(*ast.CallExpr); ok {
					if id, ok := inner.Fun.(*ast.Ident); ok && id.Name == "api" {
						calls = append(calls, sel.Sel.Name)
						reached[sel.Sel.Name] = true
					}
				}
				// api and install build the stack: they alone may call below it.
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "pmpi" && name != "api" && name != "install" {
					switch p := sel.Sel.Name; {
					case apiNames[p]:
						t.Errorf("%s calls pmpi.%s directly, around the profiling stack; call api().%s", name, p, p)
					case p == "Real" || p == "Prepare":
						t.Errorf("%s calls pmpi.%s; only api and install may", name, p)
					}
				}
				return true
			})
			if !ast.IsExported(strings.TrimPrefix(name, recvPrefix(name))) {
				continue
			}
			seen[name] = true
			switch distinct := slices.Compact(slices.Sorted(slices.Values(calls))); {
			case len(distinct) > 1:
				t.Errorf("%s makes the MPI calls %v: a tool would see one user call as several", name, distinct)
			case len(distinct) == 0 && !slices.Contains(pure, name):
				t.Errorf("%s makes no call through the API: route it through api(), or list it in pure with the reason", name)
			}
		}
	}
	for _, name := range pure {
		if !seen[name] {
			t.Errorf("pure lists %s, which package mpi does not have", name)
		}
	}
	for _, f := range prof.Functions {
		if !reached[f.Name] {
			t.Errorf("pmpi.API.%s has no mpi function that calls it", f.Name)
		}
	}
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok { // a generic type's method
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func recvPrefix(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i+1]
	}
	return ""
}
