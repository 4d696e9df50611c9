package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestSeries is how a forest chart draws the points of one series: a filled Shape in Color.
type ForestSeries struct {
	Name  string
	Color color.Color
	Shape Shape
}

// ForestPoint is one value of a forest chart: a deviation from a reference, drawn as its series.
type ForestPoint struct {
	Series string
	Value  float64
}

// ForestRow is one row of a forest chart (a data set): its label on the y axis and its points, dodged
// vertically by series within the row.
type ForestRow struct {
	Label  string
	Points []ForestPoint
}

// ForestLayer draws the points of one series: XYs are the values (X) at their row's dodged position (Y).
// A ForestLayer without points is a legend key of its glyph.
type ForestLayer struct {
	XYs    plotter.XYs
	Series ForestSeries
}

func (l *ForestLayer) glyph() draw.GlyphStyle {
	c := color.NRGBAModel.Convert(l.Series.Color).(color.NRGBA)
	return draw.GlyphStyle{Color: c, Radius: vg.Length(1.8),
		Shape: EdgedGlyph{Shape: l.Series.Shape, Edge: darker(c, 0.5), Width: 0.4}}
}

// Plot implements plot.Plotter.
func (l *ForestLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, xy := range l.XYs {
		c.DrawGlyph(l.glyph(), vg.Point{X: trX(xy.X), Y: trY(xy.Y)})
	}
}

// DataRange implements plot.DataRanger.
func (l *ForestLayer) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(l.XYs) }

// Thumbnail implements plot.Thumbnailer.
func (l *ForestLayer) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(l.glyph(), c.Center()) }

// BandLayer shades the band [−Half, Half] of a forest chart over the whole height, with dashed edges
// and a solid line at zero.
type BandLayer struct {
	Half float64
}

// bandFill is the band's shade: a pale green, under the points.
var bandFill = color.NRGBA{0xDF, 0xF0, 0xDF, 0xFF}

// Plot implements plot.Plotter.
func (l *BandLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	a, b := trX(-l.Half), trX(l.Half)
	c.FillPolygon(bandFill, []vg.Point{{X: a, Y: c.Min.Y}, {X: b, Y: c.Min.Y}, {X: b, Y: c.Max.Y}, {X: a, Y: c.Max.Y}})
	edge := draw.LineStyle{Color: color.NRGBA{0x3E, 0x8E, 0x4E, 0xFF}, Width: 0.6, Dashes: []vg.Length{2, 1.5}}
	c.StrokeLine2(edge, a, c.Min.Y, a, c.Max.Y)
	c.StrokeLine2(edge, b, c.Min.Y, b, c.Max.Y)
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: 0.6}, trX(0), c.Min.Y, trX(0), c.Max.Y)
}

// Thumbnail implements plot.Thumbnailer.
func (l *BandLayer) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(bandFill, []vg.Point{{X: c.Min.X + 1, Y: c.Min.Y + 1}, {X: c.Max.X - 1, Y: c.Min.Y + 1},
		{X: c.Max.X - 1, Y: c.Max.Y - 1}, {X: c.Min.X + 1, Y: c.Max.Y - 1}})
}

// SymLog is an axis scale (plot.Normalizer) that is logarithmic in |x| away from zero and linear near it:
// x is placed at sign(x)·log10(1 + |x|), so that deviations of 3 and of 3000 fit one axis.
type SymLog struct{}

func symlog(x float64) float64 { return math.Copysign(math.Log10(1+math.Abs(x)), x) }

// Normalize implements plot.Normalizer.
func (SymLog) Normalize(min, max, x float64) float64 {
	a, b := symlog(min), symlog(max)
	return (symlog(x) - a) / (b - a)
}

// SymLogTicks marks 0, ±1 (for a band above 1.5), ±Band and ±10, ±30, ±100, ±300, … as far as the axis reaches (plot.Ticker).
type SymLogTicks struct{ Band float64 }

// Ticks implements plot.Ticker.
func (t SymLogTicks) Ticks(min, max float64) []plot.Tick {
	label := func(v float64) string {
		s := strconv.FormatFloat(math.Abs(v), 'f', -1, 64)
		if math.Abs(v) >= 1e4 {
			s = fmt.Sprintf("1e%d", int(math.Round(math.Log10(math.Abs(v)))))
		}
		if v < 0 {
			return "−" + s
		}
		return s
	}
	vals := []float64{0}
	if t.Band > 1.5 {
		vals = append(vals, -1, 1)
	}
	if t.Band > 0 {
		vals = append(vals, -t.Band, t.Band)
	}
	for p := 10.0; p <= math.Max(math.Abs(min), math.Abs(max)); p *= 10 {
		for _, v := range []float64{p, 3 * p} {
			if v > 1.5*t.Band && v <= math.Max(math.Abs(min), math.Abs(max)) {
				vals = append(vals, -v, v)
			}
		}
	}
	slices.Sort(vals)
	var ticks []plot.Tick
	for _, v := range vals {
		if v >= min && v <= max {
			ticks = append(ticks, plot.Tick{Value: v, Label: label(v)})
		}
	}
	return ticks
}

// Forest draws a forest chart at the text width: one row per ForestRow (the first on top), each point a
// deviation from a reference on a SymLog x axis labelled xLabel, dodged within its row by its series (the
// first on top) and drawn as its series, over the band [−band, band] shaded (band > 0), with faint guides
// at the axis's ticks. The axis is symmetric about zero and holds at least 2·band. The legend names each
// series; replace Figure.Legend (with ForestLayer keys) for a shorter one.
func Forest(xLabel string, rows []ForestRow, series []ForestSeries, band float64) (Figure, error) {
	if len(rows) == 0 {
		return Figure{}, fmt.Errorf("forest: no rows")
	}
	if !(band > 0) || math.IsInf(band, 0) {
		return Figure{}, fmt.Errorf("forest: band %v, must be positive", band)
	}
	index := map[string]int{}
	layers := make([]*ForestLayer, len(series))
	for i, s := range series {
		if _, dup := index[s.Name]; dup {
			return Figure{}, fmt.Errorf("forest: series %q twice", s.Name)
		}
		if s.Color == nil {
			return Figure{}, fmt.Errorf("forest: series %q has no colour", s.Name)
		}
		index[s.Name] = i
		layers[i] = &ForestLayer{Series: s}
	}
	reach := 2 * band
	width := 0.76 // the vertical spread of the dodged series within a row
	for ri, r := range rows {
		y := float64(len(rows) - 1 - ri)
		for _, pt := range r.Points {
			si, ok := index[pt.Series]
			if !ok {
				return Figure{}, fmt.Errorf("forest: row %q has series %q, not in the list", r.Label, pt.Series)
			}
			if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
				return Figure{}, fmt.Errorf("forest: row %q, %s: value %v", r.Label, pt.Series, pt.Value)
			}
			off := 0.0
			if len(series) > 1 {
				off = width * (0.5 - float64(si)/float64(len(series)-1)) // the first series on top
			}
			layers[si].XYs = append(layers[si].XYs, plotter.XY{X: pt.Value, Y: y + off})
			reach = math.Max(reach, 1.15*math.Abs(pt.Value))
		}
	}
	p := &Panel{Plot: newPlot("", xLabel, "")}
	p.Plot.X.Scale = SymLog{}
	p.Plot.X.Tick.Marker = SymLogTicks{Band: band}
	p.Plot.X.Min, p.Plot.X.Max = -reach, reach
	guides := plotter.NewGrid() // faint guides at the x ticks, under the band (not a Layer)
	guides.Horizontal.Color = nil
	guides.Vertical.Color, guides.Vertical.Width = color.Gray{Y: 0xE0}, 0.5
	p.Plot.Add(guides)
	p.Add(&BandLayer{Half: band})
	p.Plot.Add(rowLines(len(rows))) // faint lines between the rows (not a Layer)
	legend := []LegendEntry{}
	for i, l := range layers {
		if len(l.XYs) > 0 {
			p.Add(l)
		}
		legend = append(legend, LegendEntry{Label: series[i].Name, Thumbs: []plot.Thumbnailer{l}})
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[len(rows)-1-i] = r.Label
	}
	p.Plot.NominalY(names...)
	p.Plot.Y.Tick.Label.Font.Size = LabelSize
	p.Plot.Y.Min, p.Plot.Y.Max = -0.5, float64(len(rows))-0.5
	f := Figure{Width: TextWidth, Rows: 1, Cols: 1, Panels: []*Panel{p}, Legend: legend}
	f.Height = vg.Length(len(rows))*0.34*vg.Inch + 0.5*vg.Inch + legendHeight(legend, f.Width)
	return f, nil
}

// rowLines is a plotter of faint horizontal lines between n rows.
type rowLines int

// Plot implements plot.Plotter.
func (n rowLines) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	for i := 1; i < int(n); i++ {
		y := trY(float64(i) - 0.5)
		c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0xC8}, Width: 0.5}, c.Min.X, y, c.Max.X, y)
	}
}

// ForestKey is a legend entry showing a series' glyph before label (for a legend shorter than one entry
// per series: a colour per family, a shape per variant).
func ForestKey(label string, s ForestSeries) LegendEntry {
	return LegendEntry{Label: label, Thumbs: []plot.Thumbnailer{&ForestLayer{Series: s}}}
}
