package stats_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/components/prof/stats"
)

// TestSVGLayout draws reports of 1, 3 and 64 ranks with a long job id
// and checks the picture's structure: every line of text within the
// picture's width, a colour scale under each panel that has bytes, the
// key of the colours without bytes, one cell per pair of ranks.
func TestSVGLayout(t *testing.T) {
	for _, n := range []int{1, 3, 64} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			m := func(each int64) stats.Matrix {
				var mx stats.Matrix
				for i := range n {
					msgs, b := make([]int64, n), make([]int64, n)
					for j := range n {
						if i != j {
							msgs[j], b[j] = 1, each*int64(1+i*n+j)
						}
					}
					mx.Messages, mx.Bytes = append(mx.Messages, msgs), append(mx.Bytes, b)
				}
				return mx
			}
			r := &stats.Report{Job: "0123456789abcdef-long-job-id", Ranks: n,
				Total: stats.PhaseReport{P2P: m(1 << 20), Coll: m(16)}}
			var buf bytes.Buffer
			stats.WriteSVG(&buf, r)
			scales := 2
			if n == 1 {
				scales = 0 // a rank alone sends nothing
			}
			checkSVGLayout(t, buf.Bytes(), n, scales)
		})
	}
}

// svgText is a line of text as the layout places it.
type svgText struct {
	x, size     float64
	anchor      string
	bold, turns bool
	s           string
}

// checkSVGLayout parses an SVG of the stats tool to its end and checks
// that it has one cell per pair of n ranks, that every unrotated line of
// text fits within its width (at 0.6 em per character, 0.68 in bold),
// that scales panels carry a colour scale (a gradient and the bar it
// fills), and that the key names the colours without bytes.
func checkSVGLayout(t *testing.T, data []byte, n, scales int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var (
		width            float64
		stack            []string // classes of the open elements
		texts            []svgText
		cur              *svgText
		cells, gradients int
		bars, legends    int
		keyText          []string
		inLegend         int
	)
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(s string) float64 {
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			class := attr(tok, "class")
			stack = append(stack, class)
			if class == "legend" {
				legends++
				inLegend++
			}
			switch tok.Name.Local {
			case "svg":
				width = num(attr(tok, "width"))
			case "rect":
				if len(stack) > 1 && stack[len(stack)-2] == "cells" {
					cells++
				}
				if strings.HasPrefix(attr(tok, "fill"), "url(#") && inLegend > 0 {
					bars++
				}
			case "linearGradient":
				gradients++
			case "text":
				size := 12.0
				if s := attr(tok, "font-size"); s != "" {
					size = num(s)
				}
				cur = &svgText{x: num(attr(tok, "x")), size: size, anchor: attr(tok, "text-anchor"),
					bold: attr(tok, "font-weight") == "bold", turns: attr(tok, "transform") != ""}
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(tok)
			}
		case xml.EndElement:
			if stack[len(stack)-1] == "legend" {
				inLegend--
			}
			stack = stack[:len(stack)-1]
			if tok.Name.Local == "text" && cur != nil {
				texts = append(texts, *cur)
				if inLegend > 0 {
					keyText = append(keyText, cur.s)
				}
				cur = nil
			}
		}
	}
	if width <= 0 {
		t.Fatalf("no width on the <svg> root")
	}
	if cells != 2*n*n {
		t.Errorf("%d cells, want %d", cells, 2*n*n)
	}
	for _, tx := range texts {
		if tx.turns {
			continue
		}
		per := 0.6
		if tx.bold {
			per = 0.68
		}
		w := per * tx.size * float64(len([]rune(tx.s)))
		left := tx.x
		switch tx.anchor {
		case "middle":
			left -= w / 2
		case "end":
			left -= w
		}
		if left < 0 || left+w > width {
			t.Errorf("text %q spans %.0f to %.0f, outside the picture's width %.0f", tx.s, left, left+w, width)
		}
	}
	if gradients != scales || bars != scales {
		t.Errorf("%d gradients and %d bars filled with one in a legend, want %d colour scales", gradients, bars, scales)
	}
	key := strings.Join(keyText, "|")
	if legends != scales+1 || !strings.Contains(key, "no message") || !strings.Contains(key, "messages of 0 bytes") {
		t.Errorf("%d legends with texts %q; want %d, and a key naming the cells without messages and without bytes", legends, key, scales+1)
	}
	if t.Failed() {
		t.Logf("the SVG:\n%s", firstLines(data, 40))
	}
}

func firstLines(data []byte, n int) string {
	lines := strings.SplitN(string(data), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d bytes)", len(data)))
	}
	return strings.Join(lines, "\n")
}
