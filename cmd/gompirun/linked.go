package main

import (
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/mca"
)

// gompiModule is the module every gompi program depends on.
const gompiModule = "github.com/gompi/gompi"

// linkedQueryTimeout bounds how long the program may take to reach Init
// when asked what it registers; past it its ranks check the names.
const linkedQueryTimeout = 10 * time.Second

// programLinks is what gompirun learned of the components a program
// registers. known is false when it could not learn (a script, which may
// start any program, a Go program without gompi, one that did not
// answer): then the ranks judge the names. own is true for a gompi
// program without the MPI library, which never calls Init and so can
// neither answer nor use components: gompirun's own are the measure.
type programLinks struct {
	known  bool
	own    bool
	linked mca.Linked // the answer, unless own
}

// askProgram learns which components the program of argv registers by
// running it once, with its arguments and env and mca.LinkedQueryEnvVar
// set, which makes its Init write them down and exit. Only Go programs
// that depend on gompi are asked. The answer is cached per executable
// (path, inode, size and modification time) in the user's cache
// directory, so a program is asked once.
func askProgram(ctx context.Context, argv, env []string, log hclog.Logger) programLinks {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return programLinks{} // the launcher explains when it starts the ranks
	}
	if path, err = filepath.Abs(path); err != nil {
		return programLinks{}
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		log.Debug("the program is not a Go executable; its ranks check the component names", "program", path)
		return programLinks{}
	}
	if bi.Main.Path != gompiModule && !slices.ContainsFunc(bi.Deps, func(m *debug.Module) bool { return m.Path == gompiModule }) {
		log.Debug("the program does not link gompi; its ranks check the component names", "program", path)
		return programLinks{}
	}
	if links, ok := linksMPI(path); ok && !links {
		return programLinks{known: true, own: true}
	}
	cache := cachePath(path)
	if cache != "" {
		if l, err := mca.ReadLinked(cache); err == nil {
			return programLinks{known: true, linked: l}
		}
	}
	l, err := queryProgram(ctx, path, argv, env)
	if ctx.Err() != nil {
		return programLinks{} // a signal or the timeout ends gompirun
	}
	if err != nil {
		log.Warn(fmt.Sprintf("cannot learn which components %s registers: %v; its ranks will check the component names", argv[0], err))
		return programLinks{}
	}
	if cache != "" {
		err := os.MkdirAll(filepath.Dir(cache), 0o700)
		if err == nil {
			err = l.WriteFile(cache)
		}
		if err != nil {
			log.Debug("cannot cache the program's components", "error", err)
		}
	}
	return programLinks{known: true, linked: l}
}

// queryProgram runs the program at path once with mca.LinkedQueryEnvVar
// set and reads its answer. Its output is discarded and its stdin is
// /dev/null.
func queryProgram(ctx context.Context, path string, argv, env []string) (mca.Linked, error) {
	dir, err := os.MkdirTemp("", "gompirun-linked-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	answer := filepath.Join(dir, "linked.json")
	ctx, cancel := context.WithTimeout(ctx, linkedQueryTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append(slices.Clip(env), mca.LinkedQueryEnvVar+"="+answer)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	l, rerr := mca.ReadLinked(answer)
	switch {
	case rerr == nil:
		return l, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("it did not reach Init within %s", linkedQueryTimeout)
	case err != nil:
		return nil, fmt.Errorf("run alone it ended before Init (%v)", err)
	case errors.Is(rerr, os.ErrNotExist):
		return nil, errors.New("run alone it ended without calling Init")
	}
	return nil, rerr
}

// mpiPackage prefixes the symbols of gompi's MPI library, whose Init
// answers the query.
const mpiPackage = "github.com/gompi/gompi/pmpi."

// linksMPI reports whether the executable at path has gompi's MPI
// library in its symbol table; ok is false when it has no symbol table
// (a stripped executable), which leaves the question open.
func linksMPI(path string) (links, ok bool) {
	f, err := elf.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return false, false
	}
	return slices.ContainsFunc(syms, func(s elf.Symbol) bool { return strings.HasPrefix(s.Name, mpiPackage) }), true
}

// cachePath is where the answer of the executable at path is kept: a
// file named after its identity, "" when there is no cache directory.
func cachePath(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	id := path + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += "\x00" + strconv.FormatUint(st.Dev, 10) + "\x00" + strconv.FormatUint(st.Ino, 10)
	}
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, "gompi", "linked", hex.EncodeToString(sum[:12])+".json")
}
