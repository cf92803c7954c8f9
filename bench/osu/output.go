package osu

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Header is what the comment lines above a table say. bench/c prints the
// same lines, so that one parser (package table) reads both.
type Header struct {
	Title      string      // the measurement and the library's version
	BTL        string      // the btl parameter's value, "all" if empty
	Unit       string      // the value's unit and how it is obtained
	Transports string      // which transport carries each timed pair
	Extra      [][2]string // further "name: value" lines
	Key        string      // first column: "Size" or "Ranks"
	Column     string      // value column heading
	More       []string    // further columns' headings, for Row.More
}

// Write prints the header and the rows in OSU's layout.
func Write(w io.Writer, h Header, rows []Row) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s\n", h.Title)
	fmt.Fprintf(b, "# btl: %s\n", h.BTL)
	fmt.Fprintf(b, "# unit: %s\n", h.Unit)
	for _, e := range h.Extra {
		fmt.Fprintf(b, "# %s: %s\n", e[0], e[1])
	}
	fmt.Fprintf(b, "# transports: %s\n", h.Transports)
	fmt.Fprintf(b, "# %-10s %16s", h.Key, h.Column)
	for _, c := range h.More {
		fmt.Fprintf(b, " %16s", c)
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(b, "%-12d %16s", r.Key, FormatValue(r.Value))
		for _, v := range r.More {
			fmt.Fprintf(b, " %16s", FormatValue(v))
		}
		b.WriteString("\n")
	}
	return b.Flush()
}

// FormatValue prints two decimals as OSU does, and three significant
// digits below 1 so that a small value never prints as 0.00.
func FormatValue(v float64) string {
	if v >= 1 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
