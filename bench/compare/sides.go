package compare

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/gompi/gompi/bench/osu"
	"github.com/gompi/gompi/params"
)

// Side is one column of the comparison: gompi over one of its transports,
// or a reference library with its settings.
type Side struct {
	Label  string      // column heading
	About  string      // what it is, for the docs
	Lib    *Library    // nil for gompi
	MCA    [][2]string // --mca settings, gompirun's or Open MPI's
	Expect string      // gompi: the transport every timed pair must use
	// Against is the reference a gompi side's ratio column divides by.
	Against *Side
	// SkipOversubscribed, if set, is why the side leaves out plans with
	// more ranks than CPUs.
	SkipOversubscribed string
	// SM: the side runs over shared memory between ranks, so it runs the
	// plans marked SMOnly too.
	SM bool
	// MayFail: a plan whose run fails leaves this side out, with a note,
	// instead of ending the comparison (gompi's C library may lack a
	// function a program calls).
	MayFail bool
}

// inPlan says whether the side belongs in the plan at all: a side that
// does not has no column in its table and no note saying why.
func (s *Side) inPlan(p Plan) bool { return !p.SMOnly || s.SM }

// skips reports why a side in the plan leaves it out, or "".
func (s *Side) skips(p Plan) string {
	if p.NP > runtime.NumCPU() {
		return s.SkipOversubscribed
	}
	return ""
}

// Sides returns the columns: gompi over tcp, Open MPI over tcp, gompi
// over sm if this build of gompi has it (gompiSM), then gompi's C library
// over sm (gompiC, if not nil), Open MPI over sm and MPICH (if not nil).
// The sides over shared memory run the collectives too. Each gompi side
// names its btl, so that the default selection (which prefers sm where it
// exists) never decides.
func Sides(ompi, mpich, gompiC *Library, gompiSM bool) []*Side {
	ompiTCP := &Side{Label: "Open MPI tcp", About: "`--mca btl self,tcp --mca btl_tcp_if_include lo`: the same transport as gompi tcp's",
		Lib: ompi, MCA: [][2]string{{"btl", "self,tcp"}, {"btl_tcp_if_include", "lo"}}}
	ompiSM := &Side{Label: "Open MPI sm", About: "`--mca btl self,vader`: Open MPI's shared memory, the reference for gompi sm",
		Lib: ompi, MCA: [][2]string{{"btl", "self,vader"}}, SM: true}
	sides := []*Side{
		{Label: "gompi tcp", About: "`--mca btl self,tcp`: gompi over tcp between ranks (self for a rank's own messages)",
			MCA: [][2]string{{"btl", "self,tcp"}}, Expect: "tcp", Against: ompiTCP},
		ompiTCP,
	}
	if gompiSM {
		goSM := &Side{Label: "gompi sm", About: "`--mca btl self,sm`: gompi over shared memory between ranks",
			MCA: [][2]string{{"btl", "self,sm"}}, Expect: "sm", Against: ompiSM, SM: true}
		sides = append(sides, goSM)
		if gompiC != nil {
			sides = append(sides, &Side{Label: GompiCLabel, About: "`--mca btl self,sm`: `bench/c`'s programs built unmodified against " +
				"gompi's `mpi.h` (the MPI-5.0 standard ABI) and `libmpi_abi`, launched by gompirun: a C program's calls through " +
				"gompi's C library, held against gompi sm's Go programs",
				Lib: gompiC, MCA: [][2]string{{"btl", "self,sm"}}, Against: goSM, SM: true, MayFail: true})
		}
	}
	sides = append(sides, ompiSM)
	if mpich != nil {
		sides = append(sides, &Side{Label: "MPICH", About: "MPICH's default (ch4, shared memory between local ranks)", Lib: mpich, SM: true,
			SkipOversubscribed: "it busy-waits without yielding when ranks outnumber CPUs: each message waits for a " +
				"scheduler slice (about 4 ms here), so it is left out of measurements with more ranks than CPUs"})
	}
	return sides
}

// GompiCLabel heads the gompi C side's column.
const GompiCLabel = "gompi C"

// Paths locate the programs.
type Paths struct {
	Gompirun string // gompi's launcher
	Bench    string // gompi-bench
	Info     string // gompi_info, which lists the build's components
	Build    string // the C programs' build directory
}

// Command is the command line of one run of a plan on this side.
func (s *Side) Command(p Plan, paths Paths) []string {
	if p.Name == "launch" {
		// Every side is timed by the same code: gompi-bench launch. Its
		// jobs take gompi's settings from the environment, which
		// gompi-bench's own btl line then reports.
		cmd := append([]string{paths.Bench, "launch"}, p.Args...)
		if s.Lib == nil {
			return append(append(s.envMCA(), cmd...), "--gompirun", paths.Gompirun)
		}
		return append(append(cmd, "--"), s.launcher(osu.NP, true, paths.Build, p.Prog)...)
	}
	np := strconv.Itoa(p.NP)
	over := p.NP > runtime.NumCPU()
	if s.Lib == nil {
		cmd := []string{paths.Gompirun, "-np", np}
		if over {
			cmd = append(cmd, "--oversubscribe")
		}
		for _, m := range s.MCA {
			cmd = append(cmd, "--mca", m[0], m[1])
		}
		return append(append(cmd, paths.Bench, p.Name), p.Args...)
	}
	return append(s.launcher(np, over, paths.Build, p.Prog), p.Args...)
}

// launcher is the reference library's launcher with its settings, up to
// and including the program.
func (s *Side) launcher(np string, over bool, build, prog string) []string {
	cmd := []string{s.Lib.Run, s.Lib.NP, np}
	if over && s.Lib.Over != "" {
		cmd = append(cmd, s.Lib.Over)
	}
	for _, m := range s.MCA {
		cmd = append(cmd, "--mca", m[0], m[1])
	}
	return append(cmd, filepath.Join(build, s.Lib.Dir, prog))
}

// envMCA is env(1) setting a gompi side's parameters, or nothing.
func (s *Side) envMCA() []string {
	if len(s.MCA) == 0 {
		return nil
	}
	cmd := []string{"env"}
	for _, m := range s.MCA {
		cmd = append(cmd, params.EnvPrefix+m[0]+"="+m[1])
	}
	return cmd
}

// btl is the btl line the side's tables print: its btl setting.
func (s *Side) btl() string {
	for _, m := range s.MCA {
		if m[0] == "btl" {
			return m[1]
		}
	}
	return ""
}

// shellQuote joins a command line for a reader to paste into a shell.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"{}$*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
