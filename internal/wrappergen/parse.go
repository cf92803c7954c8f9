package wrappergen

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// Block kinds. forallfn and foreachfn copy their body to file level once
// per function; fnall and fn define a wrapper around each function.
const (
	kForall  = "forallfn"
	kForeach = "foreachfn"
	kFnall   = "fnall"
	kFn      = "fn"
)

// Inline macros.
const (
	mCallfn    = "callfn"
	mVardecl   = "vardecl"
	mFileno    = "fileno"
	mReturnVal = "returnVal"
	mFnNum     = "fn_num"
	mThis      = "this"
)

// keywords are the macro names a block's escape name may not take.
var keywords = map[string]bool{
	kForall: true, "end" + kForall: true, kForeach: true, "end" + kForeach: true,
	kFnall: true, "end" + kFnall: true, kFn: true, "end" + kFn: true,
	mCallfn: true, mVardecl: true, mFileno: true, mReturnVal: true, mFnNum: true, mThis: true,
}

// file is a parsed wrapper file.
type file struct {
	name  string // as given, for messages
	index int    // its {{fileno}}: its position among the wrapper files
	top   []node // file-level text, macros and blocks, in order
}

// node is Go text, an inline macro or a block.
type node struct {
	line  int
	text  string   // Go text
	words []string // a macro's words; nil for text and blocks
	vars  *vardecl // a {{vardecl}}
	block *block
}

// block is a forallfn, foreachfn, fnall or fn block.
type block struct {
	kind  string
	esc   string   // the escape name that stands for the function's name
	names []string // functions listed (foreachfn, fn) or excluded (forallfn, fnall)
	line  int
	body  []node
	vars  []*vardecl // fnall and fn: the wrapper's variables, in order
	split int        // fnall and fn: index of {{callfn}} in body
}

// wraps reports whether the block defines a wrapper (rather than copying
// declarations to file level).
func (b *block) wraps() bool { return b.kind == kFnall || b.kind == kFn }

// listed reports whether the block names the functions it applies to
// (rather than the ones it excludes).
func (b *block) listed() bool { return b.kind == kForeach || b.kind == kFn }

// vardecl is {{vardecl TYPE v1, v2}}.
type vardecl struct {
	typ   string
	names []string
	line  int
}

// parse reads one wrapper file: its blocks, their nesting and the macros
// each place allows. Argument names are checked later, against each
// function a wrapper applies to.
func parse(name string, index int, src string) (*file, error) {
	toks, err := lex(name, src)
	if err != nil {
		return nil, err
	}
	f := &file{name: name, index: index}
	var open *block // blocks do not nest: at most one is open
	errf := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for _, t := range toks {
		if !t.macro {
			n := node{line: t.line, text: t.text}
			if open != nil {
				open.body = append(open.body, n)
			} else {
				f.top = append(f.top, n)
			}
			continue
		}
		words := strings.Fields(t.text)
		if len(words) == 0 {
			return nil, errf(t.line, "empty macro {{}}")
		}
		kw := words[0]
		switch kw {
		case kForall, kForeach, kFnall, kFn:
			if open != nil {
				return nil, errf(t.line, "{{%s}} inside {{%s}} opened at line %d: blocks do not nest", kw, open.kind, open.line)
			}
			b, err := startBlock(kw, words[1:])
			if err != nil {
				return nil, errf(t.line, "%v", err)
			}
			b.line = t.line
			open = b
			continue
		case "end" + kForall, "end" + kForeach, "end" + kFnall, "end" + kFn:
			if len(words) > 1 {
				return nil, errf(t.line, "{{%s}} takes no arguments", kw)
			}
			if open == nil {
				return nil, errf(t.line, "{{%s}} without {{%s}}", kw, kw[3:])
			}
			if kw[3:] != open.kind {
				return nil, errf(t.line, "{{%s}} closes {{%s}} opened at line %d", kw, open.kind, open.line)
			}
			if err := endBlock(open); err != nil {
				return nil, fmt.Errorf("%s:%w", name, err)
			}
			f.top = append(f.top, node{line: open.line, block: open})
			open = nil
			continue
		}
		n, err := inline(open, words, t)
		if err != nil {
			return nil, errf(t.line, "%v", err)
		}
		if open != nil {
			if n.vars != nil {
				open.vars = append(open.vars, n.vars)
			}
			open.body = append(open.body, n)
		} else {
			f.top = append(f.top, n)
		}
	}
	if open != nil {
		return nil, errf(open.line, "{{%s}} is not closed by {{end%s}}", open.kind, open.kind)
	}
	return f, nil
}

// startBlock reads a block's opening macro: its escape name and functions.
func startBlock(kind string, args []string) (*block, error) {
	b := &block{kind: kind, split: -1}
	if len(args) == 0 {
		return nil, fmt.Errorf("{{%s}} needs an escape name for the function's name", kind)
	}
	b.esc, b.names = args[0], args[1:]
	if !token.IsIdentifier(b.esc) || keywords[b.esc] {
		return nil, fmt.Errorf("{{%s}}: escape name %q is not an identifier or is a macro name", kind, b.esc)
	}
	if b.listed() && len(b.names) == 0 {
		return nil, fmt.Errorf("{{%s %s}} lists no function", kind, b.esc)
	}
	return b, nil
}

// endBlock checks a closed block: a wrapper has exactly one {{callfn}}.
func endBlock(b *block) error {
	if !b.wraps() {
		return nil
	}
	for i, n := range b.body {
		if len(n.words) == 1 && n.words[0] == mCallfn {
			if b.split >= 0 {
				return fmt.Errorf("%d: second {{callfn}} in {{%s}} opened at line %d: a wrapper calls the function once", n.line, b.kind, b.line)
			}
			b.split = i
		}
	}
	if b.split < 0 {
		return fmt.Errorf("%d: {{%s}} has no {{callfn}}: a wrapper must call the function", b.line, b.kind)
	}
	return nil
}

// inline checks an inline macro against the place it appears in: file
// level (open is nil), a forallfn or foreachfn body, or a wrapper.
func inline(open *block, words []string, t piece) (node, error) {
	n := node{line: t.line, words: words}
	kw := words[0]
	inWrapper := open != nil && open.wraps()
	switch kw {
	case mVardecl:
		if !inWrapper {
			return n, fmt.Errorf("{{%s}} outside a fn or fnall block", kw)
		}
		v, err := parseVardecl(strings.TrimSpace(t.text)[len(mVardecl):])
		if err != nil {
			return n, err
		}
		v.line = t.line
		n.vars = v
		return n, nil
	case mCallfn, mReturnVal:
		if !inWrapper {
			return n, fmt.Errorf("{{%s}} outside a fn or fnall block", kw)
		}
	case mThis:
		if open == nil {
			return n, fmt.Errorf("{{%s}} outside a block: there is no function", kw)
		}
	case mFileno, mFnNum:
	default:
		if open != nil && kw == open.esc {
			break
		}
		if inWrapper && len(words) == 1 && (token.IsIdentifier(kw) || isIndex(kw)) {
			break // an argument or a variable: checked per function
		}
		return n, fmt.Errorf("unknown macro {{%s}}", strings.TrimSpace(t.text))
	}
	if len(words) > 1 {
		return n, fmt.Errorf("{{%s}} takes no arguments", kw)
	}
	return n, nil
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s[0] >= '0' && s[0] <= '9'
}

// parseVardecl reads "TYPE v1, v2": the names are the comma-separated
// identifiers at the end; the type is what precedes the first one.
func parseVardecl(s string) (*vardecl, error) {
	bad := fmt.Errorf("bad {{vardecl%s}}: want {{vardecl TYPE v1, v2, ...}}", s)
	parts := strings.Split(s, ",")
	first := strings.TrimSpace(parts[0])
	i := strings.LastIndexAny(first, " \t\n")
	if i < 0 {
		return nil, bad
	}
	v := &vardecl{typ: strings.TrimSpace(first[:i]), names: []string{first[i+1:]}}
	for _, p := range parts[1:] {
		v.names = append(v.names, strings.TrimSpace(p))
	}
	for _, name := range v.names {
		if !token.IsIdentifier(name) || keywords[name] {
			return nil, bad
		}
	}
	return v, nil
}
