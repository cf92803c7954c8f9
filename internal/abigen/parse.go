package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// abi is the description of the standard ABI that capi/mpi.abi holds, in
// the order of its lines, which is the order of the header.
type abi struct {
	items []item
	funcs []*function
}

// item is one top-level line of the description with the lines indented
// under it (the values of a handle type or an enum).
type item struct {
	kind   string // version, abi, integer, status, handle, enum, alias, define, typedef, func, blank
	fields []string
	rest   string     // what follows the keyword, for typedef and func
	values [][]string // NAME VALUE, or alias NAME OTHER
	fn     *function
}

// function is one MPI function of the ABI.
type function struct {
	name       string // MPI_Send
	ret        string // int, double, MPI_Aint, MPI_Comm...
	params     []param
	deprecated string // the MPI version that deprecated it, if any
}

// param is one parameter of a function, its C type taken apart.
type param struct {
	name  string
	base  string // the type without const, pointers and brackets: int, void, MPI_Comm
	depth int    // pointer levels, an array counting as one
	array bool   // written as name[]
	c     string // the declaration as written
}

var protoRE = regexp.MustCompile(`^(\w+) (MPI_\w+)\((.*)\)(?: deprecated (\S+))?$`)

func parseABI(r io.Reader) (*abi, error) {
	a := &abi{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			a.items = append(a.items, item{kind: "blank"})
			continue
		}
		if strings.HasPrefix(line, "  ") {
			f := strings.Fields(line)
			if len(a.items) == 0 || !(len(f) == 2 || len(f) == 3 && f[0] == "alias") {
				return nil, fmt.Errorf("line %d: a value line must follow a handle or enum line and hold a name and a value, or alias NAME OTHER: %q", n, line)
			}
			last := &a.items[len(a.items)-1]
			if last.kind != "handle" && last.kind != "enum" {
				return nil, fmt.Errorf("line %d: a value line follows %s, not a handle or enum line", n, last.kind)
			}
			last.values = append(last.values, f)
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		it := item{kind: kw, fields: strings.Fields(rest), rest: rest}
		switch kw {
		case "version", "abi", "integer", "alias":
			if len(it.fields) != 2 && !(kw == "integer" && len(it.fields) > 2) {
				return nil, fmt.Errorf("line %d: %s takes two fields: %q", n, kw, line)
			}
		case "define", "typedef", "status", "handle", "enum":
		case "func":
			fn, err := parseProto(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			it.fn = fn
			a.funcs = append(a.funcs, fn)
		default:
			return nil, fmt.Errorf("line %d: unknown keyword %q (allowed: version abi integer status handle enum alias define typedef func)", n, kw)
		}
		a.items = append(a.items, it)
	}
	return a, sc.Err()
}

func parseProto(s string) (*function, error) {
	m := protoRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("not a prototype: %q", s)
	}
	fn := &function{ret: m[1], name: m[2], deprecated: m[4]}
	if m[3] == "void" {
		return fn, nil
	}
	for _, p := range strings.Split(m[3], ", ") {
		pp, err := parseParam(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn.name, err)
		}
		fn.params = append(fn.params, pp)
	}
	return fn, nil
}

func parseParam(s string) (param, error) {
	p := param{c: s}
	t := strings.TrimPrefix(s, "const ")
	if strings.HasSuffix(t, "[][3]") {
		// MPI_Group_range_incl's ranges: a pointer to int[3].
		p.array = true
		p.depth++
		t = strings.TrimSuffix(t, "[3]")
	}
	if strings.HasSuffix(t, "[]") {
		p.array = true
		p.depth++
		t = strings.TrimSuffix(t, "[]")
	}
	if t == "..." {
		p.base, p.name = "...", ""
		return p, nil
	}
	i := strings.LastIndexAny(t, " *")
	if i < 0 {
		return p, fmt.Errorf("parameter %q has no name", s)
	}
	p.name = t[i+1:]
	typ := strings.TrimSpace(t[:i+1])
	p.depth += strings.Count(typ, "*")
	p.base = strings.TrimSpace(strings.ReplaceAll(typ, "*", ""))
	return p, nil
}
