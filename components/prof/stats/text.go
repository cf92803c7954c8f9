package stats

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxMatrixRanks bounds the matrices the text report prints; the JSON
// and the SVG hold them at any size.
const maxMatrixRanks = 32

// writeText writes the report as text, in the manner of mpiP's: each
// phase when there are several, then the whole run.
func writeText(w io.Writer, r *Report, top int) {
	fmt.Fprintf(w, "@ gompi prof stats\n@ Job     : %s\n@ Ranks   : %d\n@ Phases  : %d\n", r.Job, r.Ranks, len(r.Phases))
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "@ Missing : %s %s: no part (it did not finish Finalize, or its part was unreadable);\n"+
			"@           its times and its rows of the matrices (what it sent) are not in this report\n",
			plural(len(r.Missing), "rank", "ranks"), intList(r.Missing))
	}
	fmt.Fprintf(w, "@ Times are seconds; bytes are those each rank sends (see docs/prof-stats.md).\n")
	if len(r.Phases) > 1 {
		for _, ph := range r.Phases {
			fmt.Fprintf(w, "\n=========== Phase %d (ended by %s) ===========\n", ph.Phase, ph.EndedBy)
			writePhase(w, ph, r.Ranks, top)
		}
	}
	fmt.Fprintf(w, "\n=========== Whole run ===========\n")
	writePhase(w, r.Total, r.Ranks, top)
}

func writePhase(w io.Writer, ph PhaseReport, ranks, top int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	section := func(title string) {
		tw.Flush()
		fmt.Fprintf(w, "\n--- %s ---\n", title)
	}
	section("MPI time")
	fmt.Fprintf(tw, "Task\tAppTime\tMPITime\tMPI%%\t\n")
	for _, t := range ph.Tasks {
		fmt.Fprintf(tw, "%d\t%.6f\t%.6f\t%.2f\t\n", t.Rank, t.AppSeconds, t.MPISeconds, t.MPIPercent)
	}
	a := ph.Aggregate
	fmt.Fprintf(tw, "*\t%.6f\t%.6f\t%.2f\t\n", a.AppSeconds, a.MPISeconds, a.MPIPercent)
	fmt.Fprintf(tw, "COV\t\t%.3f\t%.3f\t\n", ph.Spread.MPISeconds.COV, ph.Spread.MPIPercent.COV)

	section("Functions")
	fmt.Fprintf(tw, "Function\tCalls\tTime\tMean\tMin\tMax\tApp%%\tMPI%%\tBytes\t\n")
	for _, f := range ph.Functions {
		fmt.Fprintf(tw, "%s\t%d\t%.6f\t%.3g\t%.3g\t%.3g\t%.2f\t%.2f\t%d\t\n",
			f.Name, f.Calls, f.Seconds, f.Mean, f.Min, f.Max, f.AppPercent, f.MPIPercent, f.Bytes)
	}

	section("Communicators (calls on each, by name; freed: how many of the ranks' were freed, their counts included)")
	fmt.Fprintf(tw, "Communicator\tRanks\tCalls\tTime\tBytes\tFreed\t\n")
	for _, c := range ph.Comms {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.6f\t%d\t%d\t\n", c.Name, c.Ranks, c.Calls, c.Seconds, c.Bytes, c.Freed)
	}

	byID := map[int]SiteStat{}
	for _, s := range ph.Sites {
		byID[s.ID] = s
	}
	section("Call sites")
	fmt.Fprintf(tw, "ID\tFunction\tLocation\tCaller\t\n")
	for _, s := range ph.Sites {
		fmt.Fprintf(tw, "%d\t%s\t%s:%d\t%s\t\n", s.ID, s.Name, filepath.Base(s.File), s.Line, shortFunc(s.Caller))
	}
	section(fmt.Sprintf("Top %d call sites by time and their spread across the ranks that call", top))
	fmt.Fprintf(tw, "ID\tFunction\tCalls\tTime\tApp%%\tMPI%%\tRanks\tMin\tMean\tMax\tCOV\t\n")
	for _, id := range ph.TopByTime[:min(top, len(ph.TopByTime))] {
		s, sp := byID[id], byID[id].TimeSpread
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.6f\t%.2f\t%.2f\t%d\t%.3g\t%.3g\t%.3g\t%.3f\t\n",
			id, s.Name, s.Calls, s.Seconds, s.AppPercent, s.MPIPercent, s.Ranks, sp.Min, sp.Mean, sp.Max, sp.COV)
	}
	section(fmt.Sprintf("Top %d call sites by bytes (sent; received for receives) and their spread", top))
	fmt.Fprintf(tw, "ID\tFunction\tCalls\tBytes\tMean/call\tRanks\tMin\tMean\tMax\tCOV\t\n")
	for _, id := range ph.TopByBytes[:min(top, len(ph.TopByBytes))] {
		s, sp := byID[id], byID[id].BytesSpread
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.1f\t%d\t%.0f\t%.1f\t%.0f\t%.3f\t\n",
			id, s.Name, s.Calls, s.Bytes, float64(s.Bytes)/float64(max(s.Calls, 1)), s.Ranks, sp.Min, sp.Mean, sp.Max, sp.COV)
	}
	tw.Flush()
	if ranks <= maxMatrixRanks {
		writeMatrix(w, "Point-to-point messages (row sends to column, world ranks)", ph.P2P.Messages)
		writeMatrix(w, "Point-to-point bytes", ph.P2P.Bytes)
		writeMatrix(w, "Collective logical messages (one per call to each other member)", ph.Coll.Messages)
		writeMatrix(w, "Collective bytes", ph.Coll.Bytes)
	} else {
		fmt.Fprintf(w, "\n--- Matrices: %d ranks, see the JSON and the SVG ---\n", ranks)
	}
}

func writeMatrix(w io.Writer, title string, m [][]int64) {
	fmt.Fprintf(w, "\n--- %s ---\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "from\\to\t")
	for j := range m {
		fmt.Fprintf(tw, "%d\t", j)
	}
	fmt.Fprintln(tw)
	for i, r := range m {
		fmt.Fprintf(tw, "%d\t", i)
		for _, v := range r {
			fmt.Fprintf(tw, "%d\t", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// intList writes 1, 2 and 3.
func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// shortFunc drops the import path of a function's package.
func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}
