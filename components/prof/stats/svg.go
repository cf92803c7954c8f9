package stats

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The SVG's layout, in pixels. Text has no measured width in SVG, so the
// layout reserves charWidth times the font size per character (boldWidth
// for bold), the width of a digit in common sans-serif faces and above
// the mean of a line of text, and widens the picture until every line
// fits.
const (
	margin    = 24
	gap       = 40 // between the two panels
	charWidth = 0.6
	boldWidth = 0.68
	barHeight = 10
	barMin    = 180 // the colour scale's least width
)

// writeSVG draws the whole run's matrices, point-to-point and collective
// side by side, as heatmaps of bytes: a cell's colour grows with the log
// of its bytes against its panel's peak, and its tooltip gives the
// messages and bytes. Under each panel a colour scale maps colours back
// to bytes; a key below names the two colours that carry no bytes.
func writeSVG(w io.Writer, r *Report) {
	n := max(r.Ranks, 1)
	cell := max(4, min(32, 512/n))
	title := "gompi prof stats: bytes sent between ranks"
	sub := "job " + r.Job + ", whole run; row: sender, column: receiver (world ranks)"
	panels := []*panel{
		newPanel("Point-to-point", r.Total.P2P, n, cell),
		newPanel("Collective (logical pattern)", r.Total.Coll, n, cell),
	}
	pw := max(panels[0].width(), panels[1].width())
	width := max(2*margin+2*pw+gap, 2*margin+textWidth(title, 15, boldWidth), 2*margin+textWidth(sub, 11, charWidth))
	// Panels sit side by side, centred when the titles are the wider.
	left := (width - 2*pw - gap) / 2
	const y0 = 44 // under the title and the subtitle
	height := y0 + panels[0].height() + 20 + margin

	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(w, `<rect class="background" width="%d" height="%d" fill="#fff"/>`+"\n", width, height)
	fmt.Fprintf(w, `<text class="title" x="%d" y="20" font-size="15" font-weight="bold">%s</text>`+"\n", margin, esc(title))
	fmt.Fprintf(w, `<text class="title" x="%d" y="36" font-size="11" fill="#444">%s</text>`+"\n", margin, esc(sub))
	for i, p := range panels {
		p.draw(w, left+i*(pw+gap), y0)
	}
	colourKey(w, margin, height-margin)
	fmt.Fprintln(w, `</svg>`)
}

// panel is one matrix and its place: headings, rank labels on the left
// and on top, the cells, and the colour scale under them.
type panel struct {
	title string
	m     Matrix
	n     int
	cell  int
	peak  int64
	step  int // label every step-th rank
	label int // width of the row labels' column
}

func newPanel(title string, m Matrix, n, cell int) *panel {
	p := &panel{title: title, m: m, n: n, cell: cell}
	for _, r := range m.Bytes {
		for _, v := range r {
			p.peak = max(p.peak, v)
		}
	}
	// Rank labels 9 pixels high, at least a label's width apart.
	widest := textWidth(strconv.Itoa(n-1), 9, charWidth) + 4
	p.step = 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000} {
		p.step = s
		if s*cell >= max(widest, 12) {
			break
		}
	}
	p.label = widest + 18 // and the rotated "from rank"
	return p
}

func (p *panel) subtitle() string {
	if p.peak == 0 {
		return "no bytes"
	}
	return "bytes per pair, log scale; peak " + byteSize(p.peak)
}

// width is the panel's, labels included.
func (p *panel) width() int {
	return max(p.label+max(p.n*p.cell, barMin), textWidth(p.title, 13, boldWidth), textWidth(p.subtitle(), 11, charWidth))
}

// Offsets from the panel's top: headings, the "to rank" caption, the
// column labels, the cells, then the colour scale and its ticks.
const (
	headY    = 12
	subY     = 28
	captionY = 46
	colY     = 58
	cellsY   = 64
)

func (p *panel) height() int { return cellsY + p.n*p.cell + 12 + barHeight + 14 }

func (p *panel) draw(w io.Writer, x, y int) {
	x0, y0 := x+p.label, y+cellsY
	side := p.n * p.cell
	fmt.Fprintf(w, `<g class="panel">`+"\n")
	fmt.Fprintf(w, `<text class="title" x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", x, y+headY, esc(p.title))
	fmt.Fprintf(w, `<text class="title" x="%d" y="%d" font-size="11" fill="#444">%s</text>`+"\n", x, y+subY, esc(p.subtitle()))
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="10" fill="#444">to rank</text>`+"\n", x0, y+captionY)
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="10" fill="#444" text-anchor="middle" transform="rotate(-90 %d %d)">from rank</text>`+"\n",
		x+8, y0+side/2, x+8, y0+side/2)
	for k := 0; k < p.n; k += p.step {
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="9" text-anchor="middle">%d</text>`+"\n", x0+k*p.cell+p.cell/2, y+colY, k)
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="9" text-anchor="end">%d</text>`+"\n", x0-4, y0+k*p.cell+p.cell/2+3, k)
	}
	fmt.Fprintln(w, `<g class="cells">`)
	for i := range p.n {
		for j := range p.n {
			var b, msgs int64
			if i < len(p.m.Bytes) && j < len(p.m.Bytes[i]) {
				b, msgs = p.m.Bytes[i][j], p.m.Messages[i][j]
			}
			fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"><title>%d to %d: %d messages, %d bytes</title></rect>`+"\n",
				x0+j*p.cell, y0+i*p.cell, p.cell, p.cell, heat(b, msgs, p.peak), i, j, msgs, b)
		}
	}
	fmt.Fprintln(w, `</g>`)
	if p.peak > 0 {
		p.scale(w, x0, y0+side+12, max(side, barMin))
	}
	fmt.Fprintln(w, `</g>`)
}

// scale draws the colour scale of heat at (x, y), bw wide: the bar goes
// from 1 byte to the peak on heat's log scale, with ticks at the powers
// of ten whose labels do not overlap.
func (p *panel) scale(w io.Writer, x, y, bw int) {
	lo, hi := heat(1, 1, p.peak), heat(p.peak, 1, p.peak)
	id := "scale" + strconv.Itoa(x)
	fmt.Fprintf(w, `<g class="legend"><linearGradient id="%s"><stop offset="0" stop-color="%s"/><stop offset="1" stop-color="%s"/></linearGradient>`+"\n", id, lo, hi)
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="url(#%s)" stroke="#999" stroke-width="0.5"/>`+"\n", x, y, bw, barHeight, id)
	// f is where v falls on the bar; 1 byte is its left end.
	f := func(v int64) float64 {
		if p.peak <= 1 {
			return 1
		}
		return math.Log(float64(v)) / math.Log(float64(p.peak))
	}
	peakLabel := byteSize(p.peak)
	limit := x + bw - textWidth(peakLabel, 9, charWidth) - 6 // left of the peak's label
	next := x - 8                                            // right of the last label
	for v := int64(1); v < p.peak; v *= 10 {
		tx := x + int(math.Round(f(v)*float64(bw)))
		l := byteSize(v)
		half := textWidth(l, 9, charWidth) / 2
		if tx-half < next || tx+half > limit {
			continue
		}
		tick(w, tx, y, l, "middle")
		next = tx + half + 6
	}
	tick(w, x+bw, y, peakLabel, "end")
	fmt.Fprintln(w, `</g>`)
}

func tick(w io.Writer, x, y int, label, anchor string) {
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444" stroke-width="0.5"/>`, x, y+barHeight, x, y+barHeight+3)
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="9" text-anchor="%s">%s</text>`+"\n", x, y+barHeight+12, anchor, esc(label))
}

// colourKey names the colours of cells without bytes.
func colourKey(w io.Writer, x, y int) {
	fmt.Fprintln(w, `<g class="legend">`)
	for _, k := range []struct{ fill, label string }{{heat(0, 0, 0), "no message"}, {heat(0, 1, 0), "messages of 0 bytes"}} {
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="10" height="10" fill="%s" stroke="#999" stroke-width="0.5"/>`, x, y, k.fill)
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="10">%s</text>`+"\n", x+14, y+9, k.label)
		x += 14 + textWidth(k.label, 10, charWidth) + 16
	}
	fmt.Fprintln(w, `</g>`)
}

// heat is the colour of a cell: light grey without messages, pale yellow
// for messages without bytes, then from yellow (1 byte) to dark red (the
// panel's peak) with the log of the bytes.
func heat(b, msgs, peak int64) string {
	switch {
	case msgs == 0 && b == 0:
		return "#f0f0f0"
	case b == 0 || peak == 0:
		return "#fff7bc"
	}
	f := 1.0
	if peak > 1 {
		f = math.Log(float64(b)) / math.Log(float64(peak))
	}
	lerp := func(a, z float64) int { return int(math.Round(a + (z-a)*f)) }
	return fmt.Sprintf("#%02x%02x%02x", lerp(0xfe, 0x80), lerp(0xe0, 0x00), lerp(0x8b, 0x26))
}

// byteSize writes bytes with a decimal unit: 512 B, 1 kB, 1.5 MB.
func byteSize(b int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	v, u := float64(b), 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	if u == 0 || v >= 10 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// textWidth is the width the layout reserves for s at a font size, with
// per ems per character.
func textWidth(s string, fontSize int, per float64) int {
	return int(math.Ceil(per * float64(fontSize*len([]rune(s)))))
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
