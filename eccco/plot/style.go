package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Print widths of the paper (AAAI two-column layout): figures are drawn at the size they are printed, so
// that their 7–9 pt text stays readable.
const (
	ColumnWidth = 3.3 * vg.Inch // one column
	TextWidth   = 7 * vg.Inch   // both columns (figure*)
)

// DefaultDPI is the resolution of PNG output.
const DefaultDPI = 300

// MaxPixels bounds a PNG's pixels (4 bytes each while it is drawn): a larger figure is an error before
// its canvas is allocated. The paper's widest figure at 300 dpi has about 9 million.
const MaxPixels = 200e6

// Font sizes at print size.
const (
	TitleSize  = vg.Length(9)
	LabelSize  = vg.Length(8)
	TickSize   = vg.Length(7)
	LegendSize = vg.Length(7)
)

// classPalette is the default colour palette of Julia's Plots.jl, with which the paper's figures were
// drawn: series 1 blue, series 2 orange, then green, purple, …
var classPalette = []color.NRGBA{
	{0x00, 0x9A, 0xFA, 0xFF}, // blue
	{0xE3, 0x6F, 0x47, 0xFF}, // orange
	{0x3E, 0xA4, 0x4E, 0xFF}, // green
	{0xC3, 0x71, 0xD2, 0xFF}, // purple
	{0xAC, 0x8E, 0x18, 0xFF}, // olive
	{0x00, 0xAA, 0xAE, 0xFF}, // teal
	{0xED, 0x5E, 0x93, 0xFF}, // pink
	{0xC6, 0x82, 0x25, 0xFF}, // brown-orange
	{0x00, 0xA9, 0x8D, 0xFF}, // sea green
	{0x8E, 0x97, 0x1E, 0xFF}, // khaki
}

// Blue and Orange are the paper's colours of the two classes of its synthetic data (ClassColor(0) and
// ClassColor(1)).
var (
	Blue   = classPalette[0]
	Orange = classPalette[1]
)

// SampleYellow fills the stars of SGLD samples drawn for one target class ("bright yellow stars", Fig. 2).
var SampleYellow = color.NRGBA{0xFF, 0xE0, 0x1A, 0xFF}

// ClassColor returns the colour of class k, the same in every figure: class 0 blue, class 1 orange, then
// the rest of Plots.jl's default palette (cycling after 10).
func ClassColor(k int) color.NRGBA {
	if k < 0 {
		k = -k
	}
	return classPalette[k%len(classPalette)]
}

// SeriesColor returns the colour of the i-th series of a chart (the same cycle as ClassColor).
func SeriesColor(i int) color.NRGBA { return ClassColor(i) }

// darker returns c with its RGB channels scaled by f ∈ [0, 1].
func darker(c color.NRGBA, f float64) color.NRGBA {
	s := func(v uint8) uint8 { return uint8(math.Round(float64(v) * f)) }
	return color.NRGBA{s(c.R), s(c.G), s(c.B), c.A}
}

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns the figures' sans-serif text style of the given size.
func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, size), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with the package's fonts and sizes.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, TitleSize)
	p.Title.Padding = 3
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, LabelSize)
		a.Tick.Label.Font = font.From(sans, TickSize)
		a.Label.Padding = 2
		a.Tick.Length = 3
		a.Padding = 0
		a.LineStyle.Width = 0.6
		a.Tick.LineStyle.Width = 0.6
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.TextStyle.Font = font.From(sans, LegendSize)
	return p
}

// viridis anchors (matplotlib's viridis at 0, 1/9, …, 1), interpolated linearly.
var viridisAnchors = []color.NRGBA{
	{0x44, 0x01, 0x54, 0xFF}, {0x48, 0x28, 0x78, 0xFF}, {0x3E, 0x4A, 0x89, 0xFF}, {0x31, 0x68, 0x8E, 0xFF},
	{0x26, 0x82, 0x8E, 0xFF}, {0x1F, 0x9E, 0x89, 0xFF}, {0x35, 0xB7, 0x79, 0xFF}, {0x6D, 0xCD, 0x59, 0xFF},
	{0xB4, 0xDE, 0x2C, 0xFF}, {0xFD, 0xE7, 0x25, 0xFF},
}

// Viridis is a perceptually uniform colour map (dark violet at Min to yellow at Max) for the heat maps;
// it implements palette.ColorMap. Values outside [Min, Max] are clamped, NaN is an error.
type Viridis struct {
	min, max, alpha float64
}

// NewViridis returns the colour map over [min, max].
func NewViridis(min, max float64) *Viridis { return &Viridis{min: min, max: max, alpha: 1} }

// At implements palette.ColorMap.
func (v *Viridis) At(x float64) (color.Color, error) {
	if math.IsNaN(x) {
		return nil, fmt.Errorf("viridis: NaN")
	}
	t := 0.0
	if v.max > v.min {
		t = min(max((x-v.min)/(v.max-v.min), 0), 1)
	}
	f := t * float64(len(viridisAnchors)-1)
	i := min(int(f), len(viridisAnchors)-2)
	w := f - float64(i)
	a, b := viridisAnchors[i], viridisAnchors[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round((1-w)*float64(p) + w*float64(q))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), uint8(math.Round(255 * v.alpha))}, nil
}

// Max implements palette.ColorMap.
func (v *Viridis) Max() float64 { return v.max }

// SetMax implements palette.ColorMap.
func (v *Viridis) SetMax(x float64) { v.max = x }

// Min implements palette.ColorMap.
func (v *Viridis) Min() float64 { return v.min }

// SetMin implements palette.ColorMap.
func (v *Viridis) SetMin(x float64) { v.min = x }

// Alpha implements palette.ColorMap.
func (v *Viridis) Alpha() float64 { return v.alpha }

// SetAlpha implements palette.ColorMap.
func (v *Viridis) SetAlpha(a float64) {
	if !(a >= 0 && a <= 1) {
		panic(fmt.Sprintf("viridis: alpha %v outside [0, 1]", a))
	}
	v.alpha = a
}

// Palette implements palette.ColorMap: n colours evenly spaced from Min to Max.
func (v *Viridis) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		x := v.min
		if n > 1 {
			x += (v.max - v.min) * float64(i) / float64(n-1)
		}
		cs[i], _ = v.At(x)
	}
	return plainPalette(cs)
}

type plainPalette []color.Color

func (p plainPalette) Colors() []color.Color { return p }

// thinLine is the line style of axes-like strokes.
func lineStyle(c color.Color, width vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: width}
}
