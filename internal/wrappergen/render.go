package wrappergen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gompi/gompi/frameworks/prof"
)

// scope is what macros expand to where they are rendered.
type scope struct {
	f    *file
	b    *block         // nil at file level
	fn   *prof.Function // the function a block is rendered for
	vars map[string]string
	// usedReturn is set when {{returnVal}} is rendered.
	usedReturn bool
}

// fileLevel renders a wrapper file's code outside its wrappers: plain
// text and each forallfn and foreachfn body once per function.
func (g *gen) fileLevel(f *file) (*emitter, error) {
	e := &emitter{}
	for _, n := range f.top {
		switch {
		case n.block == nil:
			if err := g.render(e, []node{n}, &scope{f: f}); err != nil {
				return nil, err
			}
		case !n.block.wraps():
			for _, fn := range g.applies(n.block) {
				if err := g.render(e, n.block.body, &scope{f: f, b: n.block, fn: fn}); err != nil {
					return nil, err
				}
			}
		}
	}
	return e, nil
}

// render writes nodes with their macros expanded.
func (g *gen) render(e *emitter, nodes []node, s *scope) error {
	for _, n := range nodes {
		o := origin{s.f.name, n.line}
		if n.words == nil {
			e.write(n.text, o)
			continue
		}
		v, err := g.expand(n, s)
		if err != nil {
			return fmt.Errorf("%s: %w", o, err)
		}
		e.write(v, o)
	}
	return nil
}

// expand returns what an inline macro stands for.
func (g *gen) expand(n node, s *scope) (string, error) {
	w := n.words[0]
	switch {
	case w == mCallfn || w == mVardecl:
		return "", nil
	case w == mFileno:
		return strconv.Itoa(s.f.index), nil
	case w == mFnNum:
		g.fnNum++
		return strconv.Itoa(g.fnNum - 1), nil
	case w == mReturnVal:
		s.usedReturn = true
		return mReturnVal, nil
	case w == mThis || s.b != nil && w == s.b.esc:
		return s.fn.Name, nil
	}
	if u, ok := s.vars[w]; ok {
		return u, nil
	}
	params := s.fn.Params
	if isIndex(w) {
		i, _ := strconv.Atoi(w)
		if i >= len(params) {
			return "", fmt.Errorf("{{%s}}: %s has %d arguments", w, s.fn.Name, len(params))
		}
		return params[i].Name, nil
	}
	for _, p := range params {
		if p.Name == w {
			return p.Name, nil
		}
	}
	return "", fmt.Errorf("unknown macro or argument name {{%s}}: no wrappergen macro has that name, and %s has no such argument (it has %s)",
		w, s.fn.Name, argList(params))
}

func argList(params []prof.Param) string {
	if len(params) == 0 {
		return "none"
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// wrapping is one wrapper applied to a function.
type wrapping struct {
	f *file
	b *block
	s *scope
}

// method writes fn's override: the wrappers' variables, the pre-code of
// each wrapper in order, the call of the layer below, then the post-code
// in reverse order. It writes nothing when no wrapper applies to fn.
func (g *gen) method(out *emitter, fn *prof.Function) error {
	var ws []wrapping
	for _, f := range g.files {
		for _, n := range f.top {
			if n.block != nil && n.block.wraps() && slices.Contains(g.applies(n.block), fn) {
				ws = append(ws, wrapping{f: f, b: n.block, s: &scope{f: f, b: n.block, fn: fn, vars: map[string]string{}}})
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}

	results, lhs := resultNames(fn)
	taken := map[string]bool{"layer": true, mReturnVal: true}
	for _, r := range lhs {
		taken[r] = true
	}
	for _, p := range fn.Params {
		taken[p.Name] = true
	}
	var decls emitter
	for _, w := range ws {
		for _, v := range w.b.vars {
			for _, name := range v.names {
				if _, dup := w.s.vars[name]; dup {
					return fmt.Errorf("%s:%d: variable %s declared twice in {{%s}} opened at line %d", w.f.name, v.line, name, w.b.kind, w.b.line)
				}
				if isParam(fn, name) {
					g.warn("%s:%d: variable %s shadows %s's argument: {{%s}} is the variable; the argument's number still reaches it", w.f.name, v.line, name, fn.Name, name)
				}
				u := name
				for i := 1; taken[u]; i++ {
					u = name + strconv.Itoa(i)
				}
				taken[u] = true
				w.s.vars[name] = u
				decls.write(fmt.Sprintf("var %s %s\n", u, v.typ), origin{w.f.name, v.line})
			}
		}
	}

	var pre, post emitter
	for _, w := range ws {
		var code emitter
		if err := g.render(&code, w.b.body[:w.b.split], w.s); err != nil {
			return err
		}
		pre.appendLines(code.trimmed())
	}
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		var code emitter
		if err := g.render(&code, w.b.body[w.b.split+1:], w.s); err != nil {
			return err
		}
		post.appendLines(code.trimmed())
	}

	var files []string
	for _, w := range ws {
		if name := filepath.Base(w.f.name); !slices.Contains(files, name) {
			files = append(files, name)
		}
	}
	out.gen("\n// %s runs the wrappers of %s around Next.%s.\n", fn.Name, strings.Join(files, ", "), fn.Name)
	out.gen("func (layer module) %s(%s) %s {\n", fn.Name, paramList(fn), results)
	out.appendLines(&decls)
	if len(decls.lines) > 0 {
		out.gen("\n")
	}
	usedReturn := false
	for _, w := range ws {
		usedReturn = usedReturn || w.s.usedReturn
	}
	if usedReturn && !hasError(fn) {
		out.gen("var %s error // %s returns no error\n_ = %s\n", mReturnVal, fn.Name, mReturnVal)
	}
	out.appendLines(&pre)
	args := make([]string, len(fn.Params))
	for i, p := range fn.Params {
		args[i] = p.Name
	}
	call := fmt.Sprintf("layer.Next.%s(%s)", fn.Name, strings.Join(args, ", "))
	if len(lhs) > 0 {
		call = strings.Join(lhs, ", ") + " = " + call
	}
	out.gen("%s\n", call)
	out.appendLines(&post)
	if len(lhs) > 0 {
		out.gen("return\n")
	}
	out.gen("}\n")
	return nil
}

// resultNames returns fn's named result list and the names: the last
// result, when it is an error, is returnVal; the others are ret0, ret1...
func resultNames(fn *prof.Function) (string, []string) {
	if len(fn.Results) == 0 {
		return "", nil
	}
	var names, decl []string
	for i, t := range fn.Results {
		name := "ret" + strconv.Itoa(i)
		if i == len(fn.Results)-1 && t == "error" {
			name = mReturnVal
		}
		names = append(names, name)
		decl = append(decl, name+" "+t)
	}
	return "(" + strings.Join(decl, ", ") + ")", names
}

func hasError(fn *prof.Function) bool {
	return len(fn.Results) > 0 && fn.Results[len(fn.Results)-1] == "error"
}

func isParam(fn *prof.Function, name string) bool {
	for _, p := range fn.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func paramList(fn *prof.Function) string {
	ps := make([]string, len(fn.Params))
	for i, p := range fn.Params {
		ps[i] = p.Name + " " + p.Type
	}
	return strings.Join(ps, ", ")
}
