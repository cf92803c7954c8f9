package hostmap

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/gompi/gompi/internal/cpuset"
)

// WriteMap prints m for --display-map: a line with the policies, a table of
// the hosts (slots, limit, how many ranks and which), then one line per rank
// with its app context (in MPMD jobs only), host, local rank and binding. binding[r] describes rank r's
// binding, which the launcher decides ("" or a nil binding shows as "-").
// The format is gompi's own and stable: tests compare it.
func WriteMap(w io.Writer, m *Map, binding []string) error {
	if binding != nil && len(binding) != len(m.Procs) {
		return fmt.Errorf("display map: %d bindings for %d ranks: want one per rank", len(binding), len(m.Procs))
	}
	byHost := make([][]int, len(m.Hosts))
	for r, p := range m.Procs {
		byHost[p.Node] = append(byHost[p.Node], r)
	}
	used := 0
	for _, ranks := range byHost {
		if len(ranks) > 0 {
			used++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "job map: %d ranks on %d of %d hosts, map-by %s, rank-by %s\n", len(m.Procs), used, len(m.Hosts), m.MapBy, m.RankBy)
	fmt.Fprintln(tw, "host\tslots\tmax_slots\tprocs\tranks")
	for i, h := range m.Hosts {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\n", hostLabel(h), h.Slots, dash(h.MaxSlots), len(byHost[i]), rankList(byHost[i]))
	}
	fmt.Fprintln(tw)
	// The app column only appears for MPMD jobs, to keep the common table
	// narrow.
	mpmd := len(m.Procs) > 0 && m.Procs[len(m.Procs)-1].App > 0
	app := func(p Proc) string {
		if mpmd {
			return strconv.Itoa(p.App) + "\t"
		}
		return ""
	}
	appHead := ""
	if mpmd {
		appHead = "app\t"
	}
	fmt.Fprintf(tw, "rank\t%shost\tlocal_rank\tlocal_size\tbinding\n", appHead)
	for r, p := range m.Procs {
		b := "-"
		if binding != nil && binding[r] != "" {
			b = binding[r]
		}
		fmt.Fprintf(tw, "%d\t%s%s\t%d\t%d\t%s\n", r, app(p), m.Hosts[p.Node].Name, p.LocalRank, p.LocalSize, b)
	}
	return tw.Flush()
}

// hostLabel is user@host when a user is set.
func hostLabel(h Host) string {
	if h.User != "" {
		return h.User + "@" + h.Name
	}
	return h.Name
}

// dash shows 0 (no limit) as "-".
func dash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// rankList writes ascending ranks with runs shortened, as a CPU list is:
// 0-3,8,10-11.
func rankList(ranks []int) string {
	if len(ranks) == 0 {
		return "-"
	}
	return cpuset.Format(ranks)
}
