package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gompi/gompi/internal/version"
)

// request is a wrapper's command line: the compiler's arguments, and
// whether to show something instead of running the compiler.
type request struct {
	args []string // the user's arguments, untouched, without --showme
	show bool     // a --showme form was given
	what string   // after "--showme:"; empty for --showme itself
}

// showmeForms are the words after "--showme:", as Open MPI's wrappers take them.
var showmeForms = []string{"command", "compile", "link", "incdirs", "libdirs", "libs", "version", "help"}

// mpichForms are MPICH's wrappers' options that show instead of run, and
// the showme form each is taken for: -show prints the command, as
// --showme does; -compile_info and -link_info print the command that
// compiles, or compiles and links, whatever the arguments.
var mpichForms = map[string]string{
	"-show":         "",
	"-compile_info": "compile-info",
	"-compile-info": "compile-info",
	"-link_info":    "link-info",
	"-link-info":    "link-info",
}

// parseArgs takes out the --showme options (-showme too, as Open MPI
// allows, and MPICH's forms) and leaves every other argument to the
// compiler, whatever it looks like. The last form given wins.
func parseArgs(args []string) (request, error) {
	var req request
	for _, a := range args {
		if what, ok := mpichForms[a]; ok {
			req.show, req.what = true, what
			continue
		}
		rest, ok := strings.CutPrefix(a, "--showme")
		if !ok {
			rest, ok = strings.CutPrefix(a, "-showme")
		}
		if !ok || (rest != "" && rest[0] != ':') {
			req.args = append(req.args, a)
			continue
		}
		what := strings.TrimPrefix(rest, ":")
		if rest != "" && !slices.Contains(showmeForms, what) {
			return request{}, fmt.Errorf("unrecognized option %s (--showme takes :%s)", a,
				strings.Join(showmeForms, ", :"))
		}
		req.show, req.what = true, what
	}
	return req, nil
}

// showme is what a --showme form prints. The commands and flag lists are
// quoted for a POSIX shell where a word needs it; the directory and
// library lists are bare words separated by blanks, as Open MPI prints
// them for build systems to read.
func (w *wrapper) showme(req request) string {
	switch req.what {
	case "command":
		return shellJoin(w.compiler)
	case "compile":
		return shellJoin(w.compileFlags())
	case "link":
		return shellJoin(w.linkFlags())
	case "incdirs":
		return w.incDir()
	case "libdirs":
		return w.libDir()
	case "libs":
		return libName
	case "version":
		return fmt.Sprintf("%s: gompi %s (Language: %s)", w.name, version.Version, w.lang.name)
	case "help":
		return w.usage()
	case "compile-info":
		return shellJoin(slices.Concat(w.compiler, req.args, w.compileFlags()))
	case "link-info":
		return shellJoin(slices.Concat(w.compiler, req.args, w.compileFlags(), w.linkFlags()))
	}
	return shellJoin(w.command(req.args))
}

func (w *wrapper) usage() string {
	return fmt.Sprintf(`%[1]s [--showme[:<command,compile,link,incdirs,libdirs,libs,version,help>]] args

Runs %[2]s (or $%[3]s) with args followed by gompi's flags: -I<prefix>/include,
and when it links -Wl,--wrap=main -Wl,-u,main <prefix>/lib/%[6]s (where it is: the
program's main runs as a call from the library, whose calls then cost less)
-L<prefix>/lib -l%[4]s -Wl,-rpath,<prefix>/lib. The prefix is
%[5]s ($GOMPI_PREFIX, else the parent of the wrapper's bin/).

  --showme           Show the command it would run, without running it
  --showme:command   Show the compiler command
  --showme:compile   Show the flags added when compiling
  --showme:link      Show the flags added when linking
  --showme:incdirs   Show the include directories added when compiling
  --showme:libdirs   Show the library directories added when linking
  --showme:libs      Show the libraries added when linking
  --showme:version   Show gompi's version
  --showme:help      This help message

MPICH's forms are taken too: -show (as --showme), -compile_info and
-link_info (the command that compiles, or compiles and links).`,
		w.name, w.lang.compiler, w.lang.envVar, libName, w.prefix, startArchive)
}

// shellJoin joins words into a command line a POSIX shell splits back
// into the same words.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, s := range words {
		quoted[i] = shellQuote(s)
	}
	return strings.Join(quoted, " ")
}

// shellSafe are the characters a word may hold and stay unquoted.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%"

func shellQuote(s string) string {
	unsafe := func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }
	if s != "" && !strings.ContainsFunc(s, unsafe) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
