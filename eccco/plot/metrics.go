package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MetricValue is a metric's mean ± standard deviation for one generator (one cell of the paper's tables).
type MetricValue struct {
	Generator string
	Mean, SD  float64
}

// MetricSeries is one model's values (a series: "MLP", "JEM", …); the chart dodges series vertically.
type MetricSeries struct {
	Name   string
	Values []MetricValue
}

// MetricLayer draws one series: a point at each mean with a horizontal bar of ± sd.
type MetricLayer struct {
	// XYs are the means (X) at their generator's row (Y, dodged); SDs the standard deviations.
	XYs   plotter.XYs
	SDs   []float64
	Index int // the series' position (colour and glyph)
}

var seriesShapes = []Shape{Circle, Square, Diamond, Star}

func (l *MetricLayer) glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: SeriesColor(l.Index), Radius: vg.Length(2.4),
		Shape: EdgedGlyph{Shape: seriesShapes[l.Index%len(seriesShapes)], Edge: darker(SeriesColor(l.Index), 0.55), Width: 0.5}}
}

// Plot implements plot.Plotter.
func (l *MetricLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	line := draw.LineStyle{Color: darker(SeriesColor(l.Index), 0.8), Width: 0.9}
	for i, xy := range l.XYs {
		y := trY(xy.Y)
		if sd := l.SDs[i]; sd > 0 {
			a, b := trX(xy.X-sd), trX(xy.X+sd)
			c.StrokeLine2(line, a, y, b, y)
			c.StrokeLine2(line, a, y-1.8, a, y+1.8)
			c.StrokeLine2(line, b, y-1.8, b, y+1.8)
		}
		c.DrawGlyph(l.glyph(), vg.Point{X: trX(xy.X), Y: y})
	}
}

// DataRange implements plot.DataRanger: means ± sd.
func (l *MetricLayer) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, xy := range l.XYs {
		xmin, xmax = math.Min(xmin, xy.X-l.SDs[i]), math.Max(xmax, xy.X+l.SDs[i])
		ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (l *MetricLayer) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle{Color: darker(SeriesColor(l.Index), 0.8), Width: 0.9}, c.Min.X+1, y, c.Max.X-1, y)
	c.DrawGlyphNoClip(l.glyph(), c.Center())
}

// MetricChart is the benchmark's headline: a metric's mean ± sd per generator (one row each, in the
// order given by generators, top to bottom; nil: in order of first appearance), one series per model,
// with the shared legend naming the series. metric labels the x axis ("Unfaithfulness ↓").
func MetricChart(metric string, series []MetricSeries, generators []string) (Figure, error) {
	if len(series) == 0 {
		return Figure{}, fmt.Errorf("metric chart: no series")
	}
	if generators == nil {
		for _, s := range series {
			for _, v := range s.Values {
				if !slices.Contains(generators, v.Generator) {
					generators = append(generators, v.Generator)
				}
			}
		}
	}
	if len(generators) == 0 {
		return Figure{}, fmt.Errorf("metric chart: no values")
	}
	row := map[string]int{}
	for i, g := range generators {
		row[g] = len(generators) - 1 - i // the first generator on top
	}
	p := &Panel{Plot: newPlot("", metric, "")}
	p.Plot.Y.Padding = 4
	p.Plot.X.Padding = 4
	guides := plotter.NewGrid() // faint guides under the points (not a Layer)
	guides.Vertical.Color, guides.Horizontal.Color = color.Gray{Y: 0xE4}, color.Gray{Y: 0xE4}
	guides.Vertical.Width, guides.Horizontal.Width = 0.5, 0.5
	p.Plot.Add(guides)
	var legend []LegendEntry
	width := 0.7 / float64(len(series)) // the vertical spread of the dodged series within a row
	for si, s := range series {
		l := &MetricLayer{Index: si}
		for _, v := range s.Values {
			r, ok := row[v.Generator]
			if !ok {
				return Figure{}, fmt.Errorf("metric chart: series %q has generator %q, not in the list", s.Name, v.Generator)
			}
			if math.IsNaN(v.Mean) || math.IsInf(v.Mean, 0) || math.IsNaN(v.SD) || v.SD < 0 {
				return Figure{}, fmt.Errorf("metric chart: %s, %s: mean %v ± %v", s.Name, v.Generator, v.Mean, v.SD)
			}
			off := 0.0
			if len(series) > 1 {
				off = width * (float64(len(series)-1)/2 - float64(si)) // the first series on top
			}
			l.XYs = append(l.XYs, plotter.XY{X: v.Mean, Y: float64(r) + off})
			l.SDs = append(l.SDs, v.SD)
		}
		if len(l.XYs) > 0 {
			p.Add(l)
		}
		if s.Name != "" {
			legend = append(legend, LegendEntry{Label: s.Name, Thumbs: []plot.Thumbnailer{l}})
		}
	}
	names := make([]string, len(generators))
	for i, g := range generators {
		names[len(generators)-1-i] = g
	}
	p.Plot.NominalY(names...)
	p.Plot.Y.Tick.Label.Font.Size = LabelSize
	p.Plot.Y.Min, p.Plot.Y.Max = -0.5, float64(len(generators))-0.5
	h := vg.Length(len(generators))*0.22*vg.Inch + 0.45*vg.Inch
	f := Figure{Width: ColumnWidth, Rows: 1, Cols: 1, Panels: []*Panel{p}, Legend: legend}
	f.Height = h + legendHeight(legend, f.Width)
	return f, nil
}
