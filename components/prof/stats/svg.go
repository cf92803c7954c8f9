package stats

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// writeSVG draws the whole run's matrices, point-to-point and collective
// side by side, as heatmaps of bytes: a cell's colour grows with the log
// of its bytes, and its tooltip gives the messages and bytes.
func writeSVG(w io.Writer, r *Report) {
	n := max(r.Ranks, 1)
	cell := max(4, min(32, 512/n))
	side := cell * n
	const margin, gap, top = 48, 48, 56
	width := 2*side + gap + 2*margin
	height := side + top + margin
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(w, `<text x="%d" y="18">gompi prof stats, job %s: bytes sent, row to column (world ranks)</text>`+"\n", margin, esc(r.Job))
	panel(w, "point-to-point", r.Total.P2P, margin, top, cell)
	panel(w, "collective (logical)", r.Total.Coll, margin+side+gap, top, cell)
	fmt.Fprintln(w, `</svg>`)
}

func panel(w io.Writer, title string, m Matrix, x0, y0, cell int) {
	n := len(m.Bytes)
	var peak int64
	for _, r := range m.Bytes {
		for _, v := range r {
			peak = max(peak, v)
		}
	}
	fmt.Fprintf(w, `<g><text x="%d" y="%d">%s (max %d bytes)</text>`+"\n", x0, y0-20, esc(title), peak)
	for i := range n {
		for j := range n {
			b, msgs := m.Bytes[i][j], m.Messages[i][j]
			fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"><title>%d to %d: %d messages, %d bytes</title></rect>`+"\n",
				x0+j*cell, y0+i*cell, cell, cell, heat(b, msgs, peak), i, j, msgs, b)
		}
	}
	if cell >= 12 {
		for k := range n {
			fmt.Fprintf(w, `<text x="%d" y="%d" font-size="9" text-anchor="middle">%d</text>`+"\n", x0+k*cell+cell/2, y0-4, k)
			fmt.Fprintf(w, `<text x="%d" y="%d" font-size="9" text-anchor="end">%d</text>`+"\n", x0-4, y0+k*cell+cell/2+3, k)
		}
	}
	fmt.Fprintln(w, `</g>`)
}

// heat is the colour of a cell: light grey without messages, pale yellow
// for messages without bytes, then from yellow to dark red with the log
// of the bytes against the panel's peak.
func heat(b, msgs, peak int64) string {
	switch {
	case msgs == 0 && b == 0:
		return "#f0f0f0"
	case b == 0 || peak == 0:
		return "#fff7bc"
	}
	f := math.Log1p(float64(b)) / math.Log1p(float64(peak))
	lerp := func(a, z float64) int { return int(math.Round(a + (z-a)*f)) }
	return fmt.Sprintf("#%02x%02x%02x", lerp(0xfe, 0x80), lerp(0xe0, 0x00), lerp(0x8b, 0x26))
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
