package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gompi/gompi/params"
)

// libName is the library a program links with -l: libmpi_abi.so, the name
// the MPI-5.0 standard ABI fixes.
const libName = "mpi_abi"

// startArchive, beside the library, has the program's main run as a call
// from the library (capi/start/start.c), where each MPI call from the main
// thread costs a quarter less; an installation without it links programs
// without it.
const startArchive = "libgompi_start.a"

// language is what a wrapper compiles.
type language struct {
	name     string // as --showme:version shows it
	compiler string // the default compiler command
	envVar   string // the variable naming another compiler command
}

var (
	langC   = language{name: "C", compiler: "cc", envVar: "GOMPI_CC"}
	langCXX = language{name: "C++", compiler: "c++", envVar: "GOMPI_CXX"}
)

// cxxNames are the names that compile C++: gompi's, and those of
// mpicxx's that a build system is handed through a link (mpicxx ->
// gompicxx), as Open MPI's wrapper tells by the name too.
var cxxNames = []string{"gompicxx", "gompic++", "gompiCC", "mpicxx", "mpic++", "mpiCC"}

// languageOf tells by the name it was run as: one of cxxNames, or a name
// starting so (gompicxx-0.1, mpicxx.gompi), compiles C++, any other C.
func languageOf(name string) language {
	for _, n := range cxxNames {
		if strings.HasPrefix(name, n) {
			return langCXX
		}
	}
	return langC
}

// wrapper is one compiler wrapper, bound to an installation.
type wrapper struct {
	name       string // how it was run: gompicc, gompicxx
	lang       language
	compiler   []string // the compiler command, words split at blanks as mpicc's OMPI_CC
	prefix     string   // absolute
	prefixFrom string   // where prefix came from, for error messages
}

func newWrapper(name string, getenv func(string) string) (*wrapper, error) {
	prefix, from, err := installPrefix(getenv)
	if err != nil {
		return nil, err
	}
	lang := languageOf(name)
	compiler := strings.Fields(getenv(lang.envVar))
	if len(compiler) == 0 {
		compiler = []string{lang.compiler}
	}
	return &wrapper{name: name, lang: lang, compiler: compiler, prefix: prefix, prefixFrom: from}, nil
}

func (w *wrapper) incDir() string { return filepath.Join(w.prefix, "include") }
func (w *wrapper) libDir() string { return filepath.Join(w.prefix, "lib") }

// compileFlags are what the wrapper adds to a command that compiles or
// preprocesses.
func (w *wrapper) compileFlags() []string {
	return []string{"-I" + w.incDir()}
}

// linkFlags are what it adds to a command that links. The rpath lets the
// program find the library without LD_LIBRARY_PATH; -Wl splits its
// argument at commas, so a directory holding one goes through -Xlinker.
// The start archive's member is linked only where the C runtime calls
// main: a shared library or a program with no main gets nothing from it.
// -u main has the linker take main from an archive listed before the
// start archive (a program whose main is in its own library): the C
// runtime's reference, wrapped, no longer asks for main.
func (w *wrapper) linkFlags() []string {
	var flags []string
	if start := filepath.Join(w.libDir(), startArchive); exists(start) {
		flags = append(flags, "-Wl,--wrap=main", "-Wl,-u,main", start)
	}
	flags = append(flags, "-L"+w.libDir(), "-l"+libName)
	if strings.Contains(w.libDir(), ",") {
		return append(flags, "-Xlinker", "-rpath", "-Xlinker", w.libDir())
	}
	return append(flags, "-Wl,-rpath,"+w.libDir())
}

// command is the compiler command for the user's arguments: they come
// first, exactly as given, then the wrapper's flags, as Open MPI's and
// MPICH's wrappers place them (the libraries after the user's objects).
func (w *wrapper) command(args []string) []string {
	compile, link := flagsNeeded(args)
	cmd := slices.Concat(w.compiler, args)
	if compile {
		cmd = append(cmd, w.compileFlags()...)
	}
	if link {
		cmd = append(cmd, w.linkFlags()...)
	}
	return cmd
}

// flagsNeeded tells from the user's arguments whether the command compiles
// (or preprocesses) and whether it links. The wrapper does not parse the
// compiler's options: it looks only for the ones that stop before linking,
// and for an operand (a word not starting with '-', or "-" for stdin).
// Options alone with neither (-v, --version, -dumpmachine) are a question
// for the compiler, which gets no flags, as with Open MPI's wrappers.
func flagsNeeded(args []string) (compile, link bool) {
	if len(args) == 0 {
		return true, true
	}
	link = true
	stops, operand := false, false
	for _, a := range args {
		switch {
		case slices.Contains(noLinkOptions, a):
			stops, link = true, false
		case a == "-" || !strings.HasPrefix(a, "-"):
			operand = true
		}
	}
	if !stops && !operand {
		return false, false
	}
	return true, link
}

// noLinkOptions make the compiler stop before linking.
var noLinkOptions = []string{"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only"}

// check makes sure that the header and, when the command links, the
// library are where the flags say, naming what is missing and how to make
// it.
func (w *wrapper) check(args []string) error {
	compile, link := flagsNeeded(args)
	if compile {
		if err := w.need(filepath.Join(w.incDir(), "mpi.h")); err != nil {
			return err
		}
	}
	if link {
		return w.need(filepath.Join(w.libDir(), "lib"+libName+".so"))
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (w *wrapper) need(path string) error {
	_, err := os.Stat(path) // follows the libmpi_abi.so symlink to libmpi_abi.so.1
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: gompi's C library is not built or not installed under the prefix %s "+
			"(from %s). Run make build in gompi's source tree, which puts include/ and lib/ beside bin/, "+
			"or make install PREFIX=%s; or set %s to another installation",
			path, w.prefix, w.prefixFrom, w.prefix, params.PrefixEnvVar)
	default:
		return fmt.Errorf("cannot use gompi's C library: %w", err)
	}
}
