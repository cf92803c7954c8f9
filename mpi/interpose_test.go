package mpi

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
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
	"Comm.Transport", // reads the transport Init chose for a peer, no MPI call
	"AppNum",         // reads the app context the launcher gave the process
	"Calls",          // returns the stack itself, for the C library to call through
	// A layout's and a datatype's readers: local reads of the descriptor
	// the caller holds, as GetCount is of a status.
	"TypeOf", "LayoutOf", "Layout.Datatype", "Layout.Size", "Layout.Extent", "Layout.TrueExtent",
	"Layout.Count", "Layout.Elements", "Layout.String",
}

// pmpiPure are the methods of pmpi's types that package mpi may call on
// the values it holds, around the profiling stack: each reads or formats
// the value and is no MPI operation, so no tool would see it were it one.
// Every other method of a pmpi value (Comm.SetErrorHandler, Comm.Name...)
// does what an API call does, which a tool must see: mpi makes it as
// api().X, or not at all.
var pmpiPure = map[string]string{
	"Comm.Rank":      "a field: the rank an in-place collective compares with its root; the user's Comm.Rank is api().CommRank",
	"Comm.Size":      "a field's length: how an in-place collective cuts its buffer; the user's Comm.Size is api().CommSize",
	"Comm.Peers":     "a field's length: how many blocks a collective's buffer divides into; the user's Comm.RemoteSize is api().CommRemoteSize",
	"Comm.String":    "formats the communicator for Comm.String and error messages",
	"Group.String":   "formats the group for Group.String",
	"Request.Gen":    "the request's generation: which operation a Request stands for, not whether it completed",
	"Op.For":         "binds a user operation to its element type, as NewOp returns it; no MPI call",
	"Status.CountOf": "MPI_Get_count, a computation on the status the caller holds (GetCount)",
	"Comm.Transport": "reads the transport Init chose for a peer; no MPI call",
	"Comm.Degrees":   "reads the topology's neighbour counts: how NeighborAlltoall cuts its buffers into blocks",
	// A datatype's readers; MPI_Type_commit and _free are API calls.
	"Datatype.Size":       "MPI_Type_size: reads the datatype",
	"Datatype.Extent":     "MPI_Type_get_extent: reads the datatype",
	"Datatype.TrueExtent": "MPI_Type_get_true_extent: reads the datatype",
	"Datatype.Name":       "formats the datatype for Layout.String",
	"Status.GetElements":  "MPI_Get_elements, a computation on the status the caller holds",
}

// pmpiFuncs are the functions of package pmpi that mpi may call, and
// where: anywhere (nil), else only in the functions listed.
var pmpiFuncs = map[string][]string{
	"Bytes":       nil, // a slice's bytes, no copy
	"TypeOf":      nil, // the datatype of an element type
	"EmptyStatus": nil, // the status of a call on an inactive request
	"AppNum":      {"AppNum"},
	"Real":        {"api", "install"},
	"Prepare":     {"install"},
}

// compound are the exported functions that are two MPI calls by design,
// and reach the stack twice on a path: a layout's constructor is the
// type constructor's call and MPI_Type_commit's, as a C program builds
// the type it sends, so that a tool sees both.
var compound = []string{
	"Contiguous", "Vector", "Hvector", "Indexed", "Hindexed", "IndexedBlock", "HindexedBlock", "Subarray", "Darray", "TypeStruct",
	"Layout.Contiguous", "Layout.Vector", "Layout.Hvector", "Layout.Indexed", "Layout.Hindexed",
	"Layout.IndexedBlock", "Layout.HindexedBlock", "Layout.Subarray", "Layout.Darray", "Layout.Resized",
}

// builders build the stack, and are no MPI call of the user's: they alone
// may call a pmpi.API value that is not api()'s, only the methods listed,
// and what they call is not counted against the call that runs them.
// install asks pmpi's real API whether Init already ran (a second Init
// builds nothing) and delivers to the new stack the Pcontrol the user
// made before Init (the user's own call, late: see Pcontrol).
var builders = map[string][]string{
	"api":     nil,
	"install": {"Initialized", "Pcontrol"},
}

// TestEveryCallPassesThroughTheStack type-checks package mpi's source and
// follows, from every exported function and method, the calls it makes,
// into the other functions and methods of mpi: on any path through it, a
// call reaches the API value that profiling tools wrap (api()) at most
// once, so that a tool sees each user call as one call, and none outside
// a loop; an exported function that never reaches it must be listed in
// pure. No function calls pmpi around the stack: neither a pmpi.API
// value other than api()'s, nor a method of a pmpi value that is not in
// pmpiPure, nor a pmpi function not in pmpiFuncs. And every API method
// is reached from some mpi function.
func TestEveryCallPassesThroughTheStack(t *testing.T) {
	a := load(t)
	reached := map[string]bool{}
	for _, fd := range a.decls {
		name := funcName(fd)
		a.checkBypass(t, name, fd, reached)
	}
	var seen []string
	for _, fd := range a.decls {
		name := funcName(fd)
		if !ast.IsExported(fd.Name.Name) || (fd.Recv != nil && !ast.IsExported(strings.TrimSuffix(recvPrefix(name), "."))) {
			continue
		}
		seen = append(seen, name)
		n := a.cost(a.info.Defs[fd.Name].(*types.Func))
		twice := slices.Contains(compound, name)
		switch {
		case twice && n != 2:
			t.Errorf("compound lists %s, which reaches the profiling stack %d times on some path (%s); want 2", name, n, a.trail(fd))
		case twice:
		case n > 1:
			t.Errorf("%s reaches the profiling stack %d times on some path (%s): a tool would see one user call as several; "+
				"make one api() call, and read what it needs below the stack (Comm.rank, Comm.size)", name, n, a.trail(fd))
		case n == 0 && !slices.Contains(pure, name):
			t.Errorf("%s makes no call through the API: route it through api(), or list it in pure with the reason", name)
		case n == 1 && slices.Contains(pure, name):
			t.Errorf("pure lists %s, which makes an MPI call", name)
		}
	}
	for _, name := range compound {
		if !slices.Contains(seen, name) {
			t.Errorf("compound lists %s, which package mpi does not have", name)
		}
	}
	for _, name := range pure {
		if !slices.Contains(seen, name) {
			t.Errorf("pure lists %s, which package mpi does not have", name)
		}
	}
	for _, f := range prof.Functions {
		if !reached[f.Name] {
			t.Errorf("pmpi.API.%s has no mpi function that calls it", f.Name)
		}
	}
}

// analysis is package mpi, type-checked.
type analysis struct {
	pkg   *types.Package
	api   *types.Named // pmpi.API
	info  *types.Info
	decls []*ast.FuncDecl
	byObj map[*types.Func]*ast.FuncDecl
	memo  map[*types.Func]int
	busy  map[*types.Func]bool
}

// load parses and type-checks the package's non-test files, importing
// its dependencies from the export data go list gives.
func load(t *testing.T) *analysis {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}", ".").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -export: %v\n%s", err, stderr)
	}
	exports := map[string]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if path, file, ok := strings.Cut(sc.Text(), "="); ok {
			exports[path] = file
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f, ok := exports[path]; ok {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %q", path)
	})
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
	a := &analysis{
		info:  &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}},
		byObj: map[*types.Func]*ast.FuncDecl{},
		memo:  map[*types.Func]int{},
		busy:  map[*types.Func]bool{},
	}
	a.pkg, err = (&types.Config{Importer: imp}).Check("github.com/gompi/gompi/mpi", fset, files, a.info)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range a.pkg.Imports() {
		if p.Path() == "github.com/gompi/gompi/pmpi" {
			a.api = p.Scope().Lookup("API").Type().(*types.Named)
		}
	}
	if a.api == nil {
		t.Fatal("package mpi does not import pmpi")
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				a.decls = append(a.decls, fd)
				a.byObj[a.info.Defs[fd.Name].(*types.Func)] = fd
			}
		}
	}
	return a
}

// isPmpi reports whether obj belongs to package pmpi.
func isPmpi(obj types.Object) bool {
	return obj.Pkg() != nil && obj.Pkg().Path() == "github.com/gompi/gompi/pmpi"
}

// apiMethod is the name of the pmpi.API method fn is, or "".
func (a *analysis) apiMethod(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil || !isPmpi(fn) {
		return ""
	}
	if n, ok := types.Unalias(recv.Type()).(*types.Named); ok && n.Obj() == a.api.Obj() {
		return fn.Name()
	}
	return ""
}

// checkBypass reports the calls of fd into pmpi that go around the
// stack, and notes in reached the API methods it calls through api().
func (a *analysis) checkBypass(t *testing.T, name string, fd *ast.FuncDecl, reached map[string]bool) {
	t.Helper()
	allowed, builder := builders[name]
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var id *ast.Ident
		var recvExpr ast.Expr
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id, recvExpr = n.Sel, n.X
		case *ast.Ident:
			id = n
		default:
			return true
		}
		fn, ok := a.info.Uses[id].(*types.Func)
		if !ok || !isPmpi(fn) {
			return true
		}
		fn = fn.Origin()
		switch recv := fn.Signature().Recv(); {
		case a.apiMethod(fn) != "":
			if recvExpr == nil {
				return true // the method's name, seen again by itself
			}
			if isAPICall(recvExpr, a) {
				reached[fn.Name()] = true
			} else if !builder || !slices.Contains(allowed, fn.Name()) {
				t.Errorf("%s calls %s on a pmpi.API that is not api()'s: a call around the profiling stack; call api().%s",
					name, fn.Name(), fn.Name())
			}
		case recv != nil:
			if recvExpr == nil {
				return true
			}
			key := recvTypeName(recv.Type()) + "." + fn.Name()
			if _, ok := pmpiPure[key]; !ok {
				t.Errorf("%s calls pmpi's %s on a pmpi value, around the profiling stack: no tool sees it. "+
					"Make the MPI call through api(), or, if the method only reads its value, list it in pmpiPure with the reason", name, key)
			}
		default:
			if _, isSel := n.(*ast.SelectorExpr); isSel {
				return true // its Sel is seen next
			}
			where, ok := pmpiFuncs[fn.Name()]
			switch {
			case !ok:
				t.Errorf("%s calls pmpi.%s, which is not in pmpiFuncs: a pmpi function reached around the profiling stack", name, fn.Name())
			case where != nil && !slices.Contains(where, name):
				t.Errorf("%s calls pmpi.%s; only %v may", name, fn.Name(), where)
			}
		}
		return true
	})
}

// isAPICall reports whether e is a call of mpi's api().
func isAPICall(e ast.Expr, a *analysis) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	if !ok {
		return false
	}
	fn, ok := a.info.Uses[id].(*types.Func)
	return ok && fn.Pkg() == a.pkg && fn.Name() == "api"
}

func recvTypeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// unreachable marks the end of a path that returned.
const unreachable = -1

// cost is the most passes through the stack on any path through fn,
// following its calls into package mpi. A builder costs nothing: what it
// passes down is checked in checkBypass.
func (a *analysis) cost(fn *types.Func) int {
	fn = fn.Origin()
	if n, ok := a.memo[fn]; ok {
		return n
	}
	fd := a.byObj[fn]
	if fd == nil || a.busy[fn] {
		return 0 // declared elsewhere, or recursion: counted where it starts
	}
	if _, ok := builders[funcName(fd)]; ok {
		a.memo[fn] = 0
		return 0
	}
	a.busy[fn] = true
	ret, fall := a.block(fd.Body.List, 0)
	delete(a.busy, fn)
	a.memo[fn] = max(ret, fall, 0)
	return a.memo[fn]
}

// block follows the statements from in passes so far: ret is the most
// passes on a path that returns in them, fall on one that runs off
// their end (unreachable if none does).
func (a *analysis) block(stmts []ast.Stmt, in int) (ret, fall int) {
	ret = unreachable
	for _, s := range stmts {
		if in == unreachable {
			break
		}
		var r int
		r, in = a.stmt(s, in)
		ret = max(ret, r)
	}
	return ret, in
}

func (a *analysis) stmt(s ast.Stmt, in int) (ret, fall int) {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			in += a.expr(e)
		}
		return in, unreachable
	case *ast.BlockStmt:
		return a.block(s.List, in)
	case *ast.LabeledStmt:
		return a.stmt(s.Stmt, in)
	case *ast.IfStmt:
		if s.Init != nil {
			in += a.expr(s.Init)
		}
		in += a.expr(s.Cond)
		r1, f1 := a.block(s.Body.List, in)
		r2, f2 := unreachable, in
		if s.Else != nil {
			r2, f2 = a.stmt(s.Else, in)
		}
		return max(r1, r2), max(f1, f2)
	case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		// Each case is a path; without a default, so is skipping them all.
		var body *ast.BlockStmt
		switch s := s.(type) {
		case *ast.SwitchStmt:
			in += a.expr(s.Init) + a.expr(s.Tag)
			body = s.Body
		case *ast.TypeSwitchStmt:
			in += a.expr(s.Init) + a.expr(s.Assign)
			body = s.Body
		case *ast.SelectStmt:
			body = s.Body
		}
		ret, fall = unreachable, unreachable
		hasDefault := false
		for _, c := range body.List {
			var list []ast.Stmt
			head := 0
			switch c := c.(type) {
			case *ast.CaseClause:
				list, hasDefault = c.Body, hasDefault || c.List == nil
				for _, e := range c.List {
					head += a.expr(e)
				}
			case *ast.CommClause:
				list, hasDefault = c.Body, hasDefault || c.Comm == nil
				head = a.expr(c.Comm)
			}
			r, f := a.block(list, in+head)
			ret, fall = max(ret, r), max(fall, f)
		}
		if !hasDefault {
			fall = max(fall, in)
		}
		return ret, fall
	case *ast.ForStmt, *ast.RangeStmt:
		// A pass in a loop's body is made as many times as it runs.
		var body *ast.BlockStmt
		switch s := s.(type) {
		case *ast.ForStmt:
			in += a.expr(s.Init) + a.expr(s.Cond) + a.expr(s.Post)
			body = s.Body
		case *ast.RangeStmt:
			in += a.expr(s.X)
			body = s.Body
		}
		r, f := a.block(body.List, 0)
		in += 2 * max(r, f, 0)
		if r != unreachable {
			ret = in
		} else {
			ret = unreachable
		}
		return ret, in
	default:
		return unreachable, in + a.expr(s)
	}
}

// expr is the passes n makes wherever it runs: its calls of API methods
// and of mpi's functions. A function literal counts as run once.
func (a *analysis) expr(n ast.Node) int {
	if n == nil { // an absent Init, Tag or Cond
		return 0
	}
	total := 0
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			r, f := a.block(n.Body.List, 0)
			total += max(r, f, 0)
			return false
		case *ast.Ident:
			fn, ok := a.info.Uses[n].(*types.Func)
			switch {
			case !ok:
			case a.apiMethod(fn.Origin()) != "":
				total++
			case fn.Pkg() == a.pkg:
				total += a.cost(fn)
			}
		}
		return true
	})
	return total
}

// trail lists the API methods and mpi functions fd's body names, in
// order, for a failure's message.
func (a *analysis) trail(fd *ast.FuncDecl) string {
	var names []string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		fn, ok := a.info.Uses[id].(*types.Func)
		switch {
		case !ok:
		case a.apiMethod(fn.Origin()) != "":
			names = append(names, "API."+fn.Name())
		case fn.Pkg() == a.pkg && a.cost(fn) > 0:
			names = append(names, fmt.Sprintf("%s (%d)", funcName(a.byObj[fn.Origin()]), a.cost(fn)))
		}
		return true
	})
	return strings.Join(names, ", ")
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
