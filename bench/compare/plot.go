package compare

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot draws, for each plan with a Plot name, every side's medians
// against message size on log-log axes into dir/perf-<name>.svg, and
// returns the files' names.
func (r *Result) Plot(dir string) ([]string, error) {
	var files []string
	for _, p := range r.Plans {
		if p.Plot == "" {
			continue
		}
		name := "perf-" + p.Plot + ".svg"
		if err := r.plot(p, filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("plotting %s: %w", p.Key(), err)
		}
		files = append(files, name)
	}
	return files, nil
}

func (r *Result) plot(p Plan, path string) error {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = "message size (bytes)"
	pl.Y.Label.Text = yLabel(p)
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker = sizeTicks{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	// The legend goes top left, below the title, in headroom made above
	// the highest point: small sizes are low on both plots.
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.YOffs = -vg.Points(4)
	pl.Legend.XOffs = vg.Points(8)
	pl.Add(plotter.NewGrid())
	for i, s := range r.Sides {
		keys, med := r.Medians(p, s)
		var pts plotter.XYs
		for j, k := range keys {
			if k > 0 { // a log axis has no 0
				pts = append(pts, plotter.XY{X: float64(k), Y: med[j]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, dots, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color, dots.Color = plotutil.Color(i), plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		dots.Shape = plotutil.Shape(i)
		pl.Add(line, dots)
		pl.Legend.Add(s.Label, line, dots)
	}
	pl.Y.Max *= 20
	return pl.Save(8*vg.Inch, 5*vg.Inch, path)
}

func yLabel(p Plan) string {
	if p.Higher {
		return "bandwidth (MB/s, log scale)"
	}
	return "time (us, log scale)"
}

// sizeTicks marks powers of two: a label every fourth (1, 16, 256, 4K,
// 64K, 1M), a minor tick for the others.
type sizeTicks struct{}

func (sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := 0; e <= 40; e++ {
		v := float64(uint64(1) << e)
		if v < lo || v > hi {
			continue
		}
		t := plot.Tick{Value: v}
		if e%4 == 0 || e%2 == 0 && hi/lo < 1<<12 {
			t.Label = sizeLabel(e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func sizeLabel(e int) string {
	switch {
	case e >= 20:
		return fmt.Sprintf("%dM", 1<<(e-20))
	case e >= 10:
		return fmt.Sprintf("%dK", 1<<(e-10))
	}
	return fmt.Sprint(1 << e)
}
