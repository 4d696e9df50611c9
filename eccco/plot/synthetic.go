package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Labelled is 2-D data with class labels: X holds n rows of 2 features (x₁, x₂ pairs, row-major), Y
// the n labels.
type Labelled struct {
	X []float32
	Y []int
}

// VectorField is a vector per point of the plane, such as the negative gradient of a search objective at
// grid points.
type VectorField struct {
	// Points and Vectors hold P rows of 2 values each.
	Points, Vectors []float32
	// Scaling chooses how vectors become arrows (default Proportional).
	Scaling ArrowScaling
	// ClipQuantile is the quantile of |v| that bounds Proportional's clip value (0: the median, 0.5; 1:
	// the largest |v|, so that almost nothing is clipped).
	ClipQuantile float64
}

// ArrowScaling says how vectors become arrows. Arrows are normalised for readability, and the panel's
// key states the scale.
type ArrowScaling int

const (
	// Proportional arrows have lengths ∝ |v| up to a clip value c (a round number: 1, 2 or 5 × 10^k, at
	// most the ClipQuantile of |v|): an arrow of |v| ≥ c fills 0.9 of the grid spacing. Gradients of the
	// search objectives are heavy-tailed (steep where the model is confidently wrong, flat where the
	// search converges), so without a clip a few steep points would shrink every other arrow to nothing.
	// The key shows a full-length arrow and "|v| ≥ c".
	Proportional ArrowScaling = iota
	// DirectionOnly arrows all have 0.8 of the grid spacing: they show the direction alone.
	DirectionOnly
)

// Path is a counterfactual search path: x′ at every step, from the factual (first row) to the
// counterfactual (last row).
type Path struct {
	// Steps holds T+1 rows of 2 values.
	Steps []float32
	// From is the factual's class and To the target class: they colour the end markers.
	From, To int
}

// Samples are points drawn as stars: SGLD samples of a class.
type Samples struct {
	// X holds n rows of 2 values.
	X []float32
	// Class colours the stars with ClassColor, unless Color is set.
	Class int
	Color color.Color
}

// Surface is a scalar over a regular grid of the plane, drawn as a heat map with a colour bar (and
// contour lines at Levels): Z[iy][ix] is the value at (X[ix], Y[iy]).
type Surface struct {
	X, Y []float64
	Z    [][]float64
	// Label names the quantity beside the colour bar (optional when the panel's title names it).
	Label string
	// Min and Max fix the colour range (both 0: the range of Z).
	Min, Max float64
	// Levels are values at which contour lines are drawn (none: no lines).
	Levels []float64
	// Note, when set, is written in a white box in the middle of the panel (e.g. why a surface is
	// constant, so that a uniform panel is not mistaken for a blank one).
	Note string
}

// Plane describes one panel over the 2-D input plane: any of a heat map, the data, a vector field,
// SGLD samples and counterfactual paths, drawn in that order (paths on top).
type Plane struct {
	Title          string
	XLabel, YLabel string // default "x1", "x2"
	// XRange and YRange fix the axes (zero values: fitted to what is drawn).
	XRange, YRange [2]float64
	Surface        *Surface
	Data           *Labelled
	Field          *VectorField
	Samples        []Samples
	Paths          []Path
}

// Marker sizes at print size.
const (
	dataRadius   = vg.Length(1.6)
	sampleRadius = vg.Length(4.2)
	endRadius    = vg.Length(3.4)
	stepRadius   = vg.Length(0.9)
)

func dataGlyph(k int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: ClassColor(k), Radius: dataRadius,
		Shape: EdgedGlyph{Shape: Circle, Edge: darker(ClassColor(k), 0.6), Width: 0.3}}
}

func sampleGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: sampleRadius, Shape: EdgedGlyph{Shape: Star, Edge: color.Black, Width: 0.45}}
}

// classSampleGlyph draws the samples of class k over that class's own data (fig:poc-gen): larger stars,
// filled with a dark shade of the class colour and edged in black, so that they stand out from the
// class's points.
func classSampleGlyph(k int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: darker(ClassColor(k), 0.5), Radius: 1.3 * sampleRadius, Shape: EdgedGlyph{Shape: Star, Edge: color.Black, Width: 0.8}}
}

func factualGlyph(k int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: ClassColor(k), Radius: endRadius, Shape: EdgedGlyph{Shape: Circle, Edge: color.Black, Width: 0.8}}
}

func counterfactualGlyph(k int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: ClassColor(k), Radius: endRadius * 1.25, Shape: EdgedGlyph{Shape: Diamond, Edge: color.Black, Width: 0.8}}
}

var pathLine = draw.LineStyle{Color: color.Black, Width: 0.9}

func pairs(v []float32, what string) (plotter.XYs, error) {
	if len(v)%2 != 0 {
		return nil, fmt.Errorf("%s: %d values are not whole (x₁, x₂) rows", what, len(v))
	}
	xy := make(plotter.XYs, len(v)/2)
	for i := range xy {
		xy[i] = plotter.XY{X: float64(v[2*i]), Y: float64(v[2*i+1])}
		if math.IsNaN(xy[i].X) || math.IsNaN(xy[i].Y) || math.IsInf(xy[i].X, 0) || math.IsInf(xy[i].Y, 0) {
			return nil, fmt.Errorf("%s: row %d is (%v, %v)", what, i, xy[i].X, xy[i].Y)
		}
	}
	return xy, nil
}

// DataLayer draws labelled 2-D points, one scatter per class (ascending), in the class colours.
type DataLayer struct {
	// ByClass maps each class present to its points.
	ByClass map[int]plotter.XYs
	classes []int
}

// NewDataLayer checks d and groups its points by class.
func NewDataLayer(d Labelled) (*DataLayer, error) {
	xy, err := pairs(d.X, "data")
	if err != nil {
		return nil, err
	}
	if len(xy) != len(d.Y) {
		return nil, fmt.Errorf("data: %d rows and %d labels", len(xy), len(d.Y))
	}
	l := &DataLayer{ByClass: map[int]plotter.XYs{}}
	for i, y := range d.Y {
		if y < 0 {
			return nil, fmt.Errorf("data: row %d has label %d", i, y)
		}
		l.ByClass[y] = append(l.ByClass[y], xy[i])
	}
	for k := range l.ByClass {
		l.classes = append(l.classes, k)
	}
	slices.Sort(l.classes)
	return l, nil
}

// Plot implements plot.Plotter.
func (l *DataLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, k := range l.classes {
		sty := dataGlyph(k)
		for _, pt := range l.ByClass[k] {
			c.DrawGlyph(sty, vg.Point{X: trX(pt.X), Y: trY(pt.Y)})
		}
	}
}

// DataRange implements plot.DataRanger.
func (l *DataLayer) DataRange() (xmin, xmax, ymin, ymax float64) {
	var all plotter.XYs
	for _, k := range l.classes {
		all = append(all, l.ByClass[k]...)
	}
	return plotter.XYRange(all)
}

// PathLayer draws a counterfactual path: a line through every step with a dot per step, the factual as
// a circle in its class colour and the counterfactual as a diamond in the target's.
type PathLayer struct {
	// XYs are the steps, XYs[0] the factual and XYs[len−1] the counterfactual.
	XYs      plotter.XYs
	From, To int
}

// NewPathLayer checks the path.
func NewPathLayer(p Path) (*PathLayer, error) {
	xy, err := pairs(p.Steps, "path")
	if err != nil {
		return nil, err
	}
	if len(xy) == 0 {
		return nil, fmt.Errorf("path: no steps")
	}
	return &PathLayer{XYs: xy, From: p.From, To: p.To}, nil
}

// Plot implements plot.Plotter.
func (l *PathLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(l.XYs))
	for i, xy := range l.XYs {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
	}
	c.StrokeLines(pathLine, c.ClipLinesXY(pts)...)
	dot := draw.GlyphStyle{Color: color.Black, Radius: stepRadius, Shape: draw.CircleGlyph{}}
	for _, pt := range pts[1 : len(pts)-1] {
		c.DrawGlyph(dot, pt)
	}
	c.DrawGlyph(factualGlyph(l.From), pts[0])
	c.DrawGlyph(counterfactualGlyph(l.To), pts[len(pts)-1])
}

// DataRange implements plot.DataRanger.
func (l *PathLayer) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(l.XYs) }

// SampleLayer draws points as stars.
type SampleLayer struct {
	XYs   plotter.XYs
	Color color.Color
	// Style, when its Shape is set, replaces the star of Color.
	Style draw.GlyphStyle
}

func (l *SampleLayer) style() draw.GlyphStyle {
	if l.Style.Shape != nil {
		return l.Style
	}
	return sampleGlyph(l.Color)
}

// Plot implements plot.Plotter.
func (l *SampleLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := l.style()
	for _, xy := range l.XYs {
		c.DrawGlyph(sty, vg.Point{X: trX(xy.X), Y: trY(xy.Y)})
	}
}

// DataRange implements plot.DataRanger.
func (l *SampleLayer) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(l.XYs) }

// ArrowLayer draws a vector field as arrows from each point, with a key in the top-right corner. Arrow
// lengths are set on the page, not in data units, so that arrows of equal |v| look equally long
// whatever their direction and the axes' scales: the full length is 0.9 of the grid spacing on the page
// (the smaller of the horizontal and vertical spacing). Directions are those of v in the plotted plane.
type ArrowLayer struct {
	// Starts are the points and Vectors the vectors, as given.
	Starts, Vectors plotter.XYs
	// Lengths are the arrows' lengths as fractions of the full length (0: no arrow, for |v| = 0 or
	// non-finite v).
	Lengths []float64
	// Clip is the |v| of a full-length arrow (Proportional; 0 for DirectionOnly).
	Clip float64
	// KeyText labels the key; with Clip > 0 the key shows a full-length arrow.
	KeyText string
	// GapX and GapY are the grid spacings along each axis in data units (+Inf where the points share one
	// coordinate).
	GapX, GapY float64
}

var arrowLine = draw.LineStyle{Color: color.NRGBA{0x33, 0x33, 0x33, 0xFF}, Width: 0.55}

const arrowHead = vg.Length(3)

// NewArrowLayer scales the field's vectors into arrows (see ArrowScaling).
func NewArrowLayer(f VectorField) (*ArrowLayer, error) {
	pts, err := pairs(f.Points, "vector field points")
	if err != nil {
		return nil, err
	}
	if len(f.Vectors) != len(f.Points) {
		return nil, fmt.Errorf("vector field: %d vector values for %d point values", len(f.Vectors), len(f.Points))
	}
	l := &ArrowLayer{Starts: pts, Vectors: make(plotter.XYs, len(pts)), Lengths: make([]float64, len(pts))}
	l.GapX, l.GapY = gap(pts, func(p plotter.XY) float64 { return p.X }), gap(pts, func(p plotter.XY) float64 { return p.Y })
	var mags []float64
	for i := range pts {
		l.Vectors[i] = plotter.XY{X: float64(f.Vectors[2*i]), Y: float64(f.Vectors[2*i+1])}
		if m := math.Hypot(l.Vectors[i].X, l.Vectors[i].Y); m > 0 && !math.IsInf(m, 0) {
			mags = append(mags, m)
		}
	}
	switch f.Scaling {
	case Proportional:
		qu := f.ClipQuantile
		if qu == 0 {
			qu = 0.5
		}
		if !(qu > 0 && qu <= 1) {
			return nil, fmt.Errorf("vector field: clip quantile %v outside (0, 1]", f.ClipQuantile)
		}
		if len(mags) > 0 {
			sorted := slices.Sorted(slices.Values(mags))
			l.Clip = niceBelow(sorted[int(qu*float64(len(sorted)-1))])
			l.KeyText = "|v| ≥ " + strconv.FormatFloat(l.Clip, 'g', 3, 64)
		}
	case DirectionOnly:
		l.KeyText = "direction only"
	default:
		return nil, fmt.Errorf("vector field: unknown scaling %d", f.Scaling)
	}
	for i, v := range l.Vectors {
		m := math.Hypot(v.X, v.Y)
		switch {
		case !(m > 0) || math.IsInf(m, 0):
		case f.Scaling == DirectionOnly:
			l.Lengths[i] = 0.8 / 0.9
		default:
			l.Lengths[i] = math.Min(m/l.Clip, 1)
		}
	}
	return l, nil
}

// gap is the smallest positive difference between distinct coordinates (+Inf for fewer than two).
func gap(pts plotter.XYs, get func(plotter.XY) float64) float64 {
	v := make([]float64, len(pts))
	for i, p := range pts {
		v[i] = get(p)
	}
	slices.Sort(v)
	v = slices.Compact(v)
	best := math.Inf(1)
	for i := 1; i < len(v); i++ {
		best = math.Min(best, v[i]-v[i-1])
	}
	return best
}

// niceBelow returns the largest 1, 2 or 5 × 10^k not above q (q > 0).
func niceBelow(q float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(q)))
	for _, m := range []float64{5, 2, 1} {
		if m*e <= q*(1+1e-12) {
			return m * e
		}
	}
	return e
}

// fullLength is the page length of a full arrow: 0.9 of the smaller grid spacing on the page (5 % of
// the data area's width without a grid).
func (l *ArrowLayer) fullLength(c draw.Canvas, trX, trY func(float64) vg.Length) vg.Length {
	s := math.Inf(1)
	if !math.IsInf(l.GapX, 1) {
		s = math.Abs(float64(trX(l.GapX) - trX(0)))
	}
	if !math.IsInf(l.GapY, 1) {
		s = math.Min(s, math.Abs(float64(trY(l.GapY)-trY(0))))
	}
	if math.IsInf(s, 1) {
		s = 0.05 * float64(c.Max.X-c.Min.X)
	}
	return vg.Length(0.9 * s)
}

// Segments returns the arrows on the page for the plot's data canvas c: from each point, along v as
// plotted, Lengths[i] of the full length (equal points for no arrow).
func (l *ArrowLayer) Segments(c draw.Canvas, p *plot.Plot) (from, to []vg.Point) {
	trX, trY := p.Transforms(&c)
	full := l.fullLength(c, trX, trY)
	sx, sy := float64(trX(1)-trX(0)), float64(trY(1)-trY(0)) // page units per data unit
	from, to = make([]vg.Point, len(l.Starts)), make([]vg.Point, len(l.Starts))
	for i, s := range l.Starts {
		from[i] = vg.Point{X: trX(s.X), Y: trY(s.Y)}
		to[i] = from[i]
		dx, dy := l.Vectors[i].X*sx, l.Vectors[i].Y*sy
		if n := math.Hypot(dx, dy); l.Lengths[i] > 0 && n > 0 && !math.IsInf(n, 0) {
			k := l.Lengths[i] * float64(full) / n
			to[i] = vg.Point{X: from[i].X + vg.Length(dx*k), Y: from[i].Y + vg.Length(dy*k)}
		}
	}
	return from, to
}

// Plot implements plot.Plotter. Arrows under the key are left out.
func (l *ArrowLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	full := l.fullLength(c, trX, trY)
	box, keyLen, hasKey := l.keyBox(c, full)
	under := func(pt vg.Point) bool {
		return hasKey && pt.X >= box.Min.X-1 && pt.X <= box.Max.X+1 && pt.Y >= box.Min.Y-1 && pt.Y <= box.Max.Y+1
	}
	from, to := l.Segments(c, p)
	for i, a := range from {
		b := to[i]
		if a == b || !c.Contains(a) || under(a) || under(b) {
			continue
		}
		drawArrow(&c, arrowLine, a, b, arrowHead)
	}
	if !hasKey {
		return
	}
	c.FillPolygon(color.White, []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}})
	sty := keyStyle()
	mid := (box.Min.Y + box.Max.Y) / 2
	x := box.Min.X + keyPad
	if keyLen > 0 {
		drawArrow(&c, arrowLine, vg.Point{X: x, Y: mid}, vg.Point{X: x + keyLen, Y: mid}, arrowHead)
		x += keyLen + keyPad
	}
	c.FillText(sty, vg.Point{X: x, Y: mid}, l.KeyText)
}

const keyPad = vg.Length(2.5)

func keyStyle() text.Style {
	sty := textStyle(TickSize)
	sty.YAlign = draw.YCenter
	return sty
}

// keyBox returns the key's box in the top-right corner of the data area and its arrow's length.
func (l *ArrowLayer) keyBox(c draw.Canvas, full vg.Length) (box vg.Rectangle, arrowLen vg.Length, ok bool) {
	if l.KeyText == "" {
		return box, 0, false
	}
	sty := keyStyle()
	if l.Clip > 0 {
		arrowLen = full
	}
	w := sty.Width(l.KeyText) + 2*keyPad
	if arrowLen > 0 {
		w += arrowLen + keyPad
	}
	h := sty.Height(l.KeyText) + 2*keyPad
	box = vg.Rectangle{Min: vg.Point{X: c.Max.X - w - 1, Y: c.Max.Y - h - 1}, Max: vg.Point{X: c.Max.X - 1, Y: c.Max.Y - 1}}
	return box, arrowLen, true
}

// DataRange implements plot.DataRanger: the arrows' feet (the grid), not their tips.
func (l *ArrowLayer) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(l.Starts) }

// SurfaceLayer draws a Surface as a heat map (and its contour lines). Unlike plotter.HeatMap it reports
// no glyph boxes, so the map fills the data area up to the axes.
type SurfaceLayer struct {
	Surface *Surface
	HeatMap *plotter.HeatMap
	Contour *plotter.Contour // nil without Levels
}

// Plot implements plot.Plotter.
func (l *SurfaceLayer) Plot(c draw.Canvas, p *plot.Plot) {
	l.HeatMap.Plot(c, p)
	if l.Contour != nil {
		l.Contour.Plot(c, p)
	}
}

// DataRange implements plot.DataRanger: the heat map's cells.
func (l *SurfaceLayer) DataRange() (xmin, xmax, ymin, ymax float64) { return l.HeatMap.DataRange() }

// gridXYZ adapts a Surface to plotter.GridXYZ.
type gridXYZ struct{ s *Surface }

func (g gridXYZ) Dims() (c, r int)   { return len(g.s.X), len(g.s.Y) }
func (g gridXYZ) Z(c, r int) float64 { return g.s.Z[r][c] }
func (g gridXYZ) X(c int) float64    { return g.s.X[c] }
func (g gridXYZ) Y(r int) float64    { return g.s.Y[r] }
func (s *Surface) zRange() (lo, hi float64) {
	if s.Min != 0 || s.Max != 0 {
		return s.Min, s.Max
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range s.Z {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi <= lo { // a constant surface still gets a valid colour range
		hi = lo + 1
	}
	return lo, hi
}

func (s *Surface) check() error {
	if len(s.X) < 2 || len(s.Y) < 2 {
		return fmt.Errorf("surface %q: need at least 2 × 2 grid points, have %d × %d", s.Label, len(s.X), len(s.Y))
	}
	if len(s.Z) != len(s.Y) {
		return fmt.Errorf("surface %q: %d rows of Z for %d Y values", s.Label, len(s.Z), len(s.Y))
	}
	for i, row := range s.Z {
		if len(row) != len(s.X) {
			return fmt.Errorf("surface %q: row %d of Z has %d values for %d X values", s.Label, i, len(row), len(s.X))
		}
	}
	for _, v := range [][]float64{s.X, s.Y} {
		for i := 1; i < len(v); i++ {
			if !(v[i] > v[i-1]) {
				return fmt.Errorf("surface %q: grid coordinates must increase", s.Label)
			}
		}
	}
	if !(s.Min <= s.Max) {
		return fmt.Errorf("surface %q: colour range [%v, %v]", s.Label, s.Min, s.Max)
	}
	lo, hi := s.zRange()
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("surface %q: no finite value", s.Label)
	}
	return nil
}

// Panel builds the plane's panel: its plot (square data area), its layers and, with a Surface, a colour
// bar.
func (pl Plane) Panel() (*Panel, error) {
	xl, yl := pl.XLabel, pl.YLabel
	if xl == "" {
		xl = "x1"
	}
	if yl == "" {
		yl = "x2"
	}
	p := &Panel{Plot: newPlot(pl.Title, xl, yl)}
	if s := pl.Surface; s != nil {
		if err := s.check(); err != nil {
			return nil, err
		}
		lo, hi := s.zRange()
		cm := NewViridis(lo, hi)
		l := &SurfaceLayer{Surface: s, HeatMap: plotter.NewHeatMap(gridXYZ{s}, cm.Palette(256))}
		l.HeatMap.Min, l.HeatMap.Max, l.HeatMap.Rasterized = lo, hi, true
		l.HeatMap.Underflow, l.HeatMap.Overflow = viridisAnchors[0], viridisAnchors[len(viridisAnchors)-1]
		if len(s.Levels) > 0 {
			l.Contour = plotter.NewContour(gridXYZ{s}, s.Levels, plainPalette{color.White})
			l.Contour.LineStyles = []draw.LineStyle{{Color: color.White, Width: 0.6, Dashes: []vg.Length{2, 1.5}}}
		}
		p.Add(l)
		bar := newPlot("", "", s.Label)
		bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 256})
		bar.HideX()
		bar.Y.Padding = 0
		p.ColorBar = bar
	}
	if pl.Data != nil {
		l, err := NewDataLayer(*pl.Data)
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	if pl.Field != nil {
		l, err := NewArrowLayer(*pl.Field)
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	for i, s := range pl.Samples {
		xy, err := pairs(s.X, fmt.Sprintf("samples %d", i))
		if err != nil {
			return nil, err
		}
		l := &SampleLayer{XYs: xy, Color: s.Color}
		if s.Color == nil {
			l.Color, l.Style = ClassColor(s.Class), classSampleGlyph(s.Class)
		}
		p.Add(l)
	}
	for _, path := range pl.Paths {
		l, err := NewPathLayer(path)
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	if pl.Surface != nil && pl.Surface.Note != "" { // on top of everything
		p.Add(NoteLayer{Text: pl.Surface.Note})
	}
	// Fixed ranges as given; otherwise a heat map fills the data area and markers get a 4 % margin.
	for _, a := range []struct {
		axis *plot.Axis
		r    [2]float64
	}{{&p.Plot.X, pl.XRange}, {&p.Plot.Y, pl.YRange}} {
		switch {
		case a.r != [2]float64{}:
			a.axis.Min, a.axis.Max = a.r[0], a.r[1]
		case pl.Surface == nil && len(p.Layers) > 0:
			m := 0.04 * (a.axis.Max - a.axis.Min)
			if m == 0 {
				m = 0.5
			}
			a.axis.Min, a.axis.Max = a.axis.Min-m, a.axis.Max+m
		}
	}
	return p, nil
}

// thumb draws one glyph in the middle of a legend thumbnail.
type thumb struct{ sty draw.GlyphStyle }

func (t thumb) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(t.sty, c.Center()) }

type arrowThumb struct{}

func (arrowThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	drawArrow(c, arrowLine, vg.Point{X: c.Min.X + 1, Y: y}, vg.Point{X: c.Max.X - 1, Y: y}, arrowHead)
}

type pathThumb struct{}

func (pathThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(pathLine, c.Min.X, y, c.Max.X, y)
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.Black, Radius: stepRadius, Shape: draw.CircleGlyph{}}, c.Center())
}

// className is names[k], or "class k" when the name is missing or only the class number.
func className(names []string, k int) string {
	if k >= 0 && k < len(names) && names[k] != "" && names[k] != strconv.Itoa(k) {
		return names[k]
	}
	return "class " + strconv.Itoa(k)
}

// planeLegend returns the shared legend of planes, on as few lines as it can: each class of the data
// (with the star of its own samples, if drawn), samples of one colour, the factual with the path, the
// counterfactual and the arrows, as far as any plane draws them.
func planeLegend(planes []Plane, classNames []string, sampleLabel string) []LegendEntry {
	classes := map[int]bool{}
	type sampleKey struct {
		class int
		c     color.Color
	}
	var samples []sampleKey
	seen := map[sampleKey]bool{}
	var from, to = -1, -1
	arrows := false
	for _, pl := range planes {
		if pl.Data != nil {
			for _, y := range pl.Data.Y {
				classes[y] = true
			}
		}
		for _, s := range pl.Samples {
			k := sampleKey{s.Class, s.Color}
			if !seen[k] {
				seen[k] = true
				samples = append(samples, k)
			}
		}
		for _, p := range pl.Paths {
			from, to = p.From, p.To
		}
		arrows = arrows || pl.Field != nil
	}
	var out []LegendEntry
	ks := make([]int, 0, len(classes))
	for k := range classes {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	classEntry := map[int]int{}
	for _, k := range ks {
		classEntry[k] = len(out)
		out = append(out, LegendEntry{Label: className(classNames, k), Thumbs: []plot.Thumbnailer{thumb{dataGlyph(k)}}})
	}
	for _, s := range samples {
		if s.c == nil { // the class's own samples: their star joins the class's entry
			if i, ok := classEntry[s.class]; ok {
				out[i].Thumbs = append(out[i].Thumbs, thumb{classSampleGlyph(s.class)})
				continue
			}
			out = append(out, LegendEntry{Label: sampleLabel + " (" + className(classNames, s.class) + ")", Thumbs: []plot.Thumbnailer{thumb{classSampleGlyph(s.class)}}})
			continue
		}
		out = append(out, LegendEntry{Label: sampleLabel, Thumbs: []plot.Thumbnailer{thumb{sampleGlyph(s.c)}}})
	}
	if from >= 0 { // the path's line joins the factual's entry
		out = append(out,
			LegendEntry{Label: "factual, path", Thumbs: []plot.Thumbnailer{thumb{factualGlyph(from)}, pathThumb{}}},
			LegendEntry{Label: "counterfactual", Thumbs: []plot.Thumbnailer{thumb{counterfactualGlyph(to)}}})
	}
	if arrows {
		out = append(out, LegendEntry{Label: "−gradient", Thumbs: []plot.Thumbnailer{arrowThumb{}}})
	}
	return out
}

// PlaneFigure arranges planes in a grid of cols columns (0: one row up to 3 panels, otherwise as square
// as possible) at the given printed width (0: TextWidth), with the shared legend below. Panels are
// roughly square (wider with a colour bar).
func PlaneFigure(planes []Plane, cols int, width vg.Length, classNames []string) (Figure, error) {
	if len(planes) == 0 {
		return Figure{}, fmt.Errorf("plane figure: no planes")
	}
	rows := 0
	if cols <= 0 {
		rows, cols = gridShape(len(planes))
	} else {
		rows = (len(planes) + cols - 1) / cols
	}
	if width <= 0 {
		width = TextWidth
	}
	f := Figure{Width: width, Rows: rows, Cols: cols, Panels: make([]*Panel, rows*cols),
		Legend: planeLegend(planes, classNames, "samples")}
	bars := false
	for i, pl := range planes {
		p, err := pl.Panel()
		if err != nil {
			return Figure{}, fmt.Errorf("panel %d (%s): %w", i, pl.Title, err)
		}
		f.Panels[i] = p
		bars = bars || p.ColorBar != nil
	}
	tileW := width / vg.Length(cols)
	side := tileW
	if bars {
		side -= colorBarWidth
	}
	// A square data area needs the tile to be about as tall as it is wide, plus the title and the x
	// axis, less the y axis.
	tileH := side + 0.12*vg.Inch
	f.Height = vg.Length(rows)*tileH + legendHeight(f.Legend, width)
	return f, nil
}

// GeneratorPanel is what Fig. 2 shows for one generator.
type GeneratorPanel struct {
	// Generator names the panel ("Wachter", "ECCCo (no EBM)", …).
	Generator string
	// Field is the negative gradient of the generator's objective on a grid (optional).
	Field *VectorField
	// Path is the search path of the factual.
	Path Path
	// Samples are SGLD samples of the target class (optional), drawn as bright yellow stars.
	Samples []float32
}

// POC composes Fig. 2 (fig:poc): one panel per generator (2 × 2 for four), each showing the data, the
// gradient field of the generator's objective, the counterfactual path and the SGLD samples of the
// target class; 0.75 of the text width, as in the paper. All panels share the axes' ranges.
func POC(data Labelled, panels []GeneratorPanel, classNames []string) (Figure, error) {
	if len(panels) == 0 {
		return Figure{}, fmt.Errorf("poc figure: no generators")
	}
	planes := make([]Plane, len(panels))
	var all plotter.XYs
	if xy, err := pairs(data.X, "data"); err == nil {
		all = append(all, xy...)
	}
	for i, gp := range panels {
		planes[i] = Plane{Title: gp.Generator, Data: &data, Field: gp.Field, Paths: []Path{gp.Path}}
		if len(gp.Samples) > 0 {
			planes[i].Samples = []Samples{{X: gp.Samples, Class: gp.Path.To, Color: SampleYellow}}
		}
		for _, v := range [][]float32{gp.Path.Steps, gp.Samples} {
			if xy, err := pairs(v, "points"); err == nil {
				all = append(all, xy...)
			}
		}
		if gp.Field != nil {
			if xy, err := pairs(gp.Field.Points, "points"); err == nil {
				all = append(all, xy...)
			}
		}
	}
	if len(all) > 0 {
		xmin, xmax, ymin, ymax := plotter.XYRange(all)
		px, py := 0.02*(xmax-xmin), 0.02*(ymax-ymin)
		for i := range planes {
			planes[i].XRange = [2]float64{xmin - px, xmax + px}
			planes[i].YRange = [2]float64{ymin - py, ymax + py}
		}
	}
	cols := 0
	if len(panels) == 4 {
		cols = 2
	}
	f, err := PlaneFigure(planes, cols, 0.75*TextWidth, classNames)
	if err != nil {
		return Figure{}, err
	}
	f.Legend = planeLegend(planes, classNames, "SGLD samples")
	return f, nil
}

// POCGen composes fig:poc-gen: conditional SGLD samples of each class (samples[k] for class k, n rows of
// 2 values) as stars in the class colour over the data; 0.5 of the column width in the paper, drawn at
// the column width here.
func POCGen(data Labelled, samples [][]float32, classNames []string) (Figure, error) {
	pl := Plane{Data: &data}
	for k, s := range samples {
		if len(s) > 0 {
			pl.Samples = append(pl.Samples, Samples{X: s, Class: k})
		}
	}
	return PlaneFigure([]Plane{pl}, 1, ColumnWidth, classNames)
}

// CPDiff composes fig:cp-diff: prediction set size (left), smooth set size (centre) and configurable
// classification loss (right) over the plane, each a heat map with its colour bar, with the data on top
// when data is not nil.
func CPDiff(data *Labelled, setSize, smoothSetSize, loss Surface, classNames []string) (Figure, error) {
	titles := []string{"Prediction set size", "Smooth set size", "Classification loss"}
	planes := make([]Plane, 3)
	for i, s := range []Surface{setSize, smoothSetSize, loss} {
		planes[i] = Plane{Title: titles[i], Surface: &s, Data: data}
	}
	return PlaneFigure(planes, 3, TextWidth, classNames)
}

// NoteLayer writes a note in a white box in the middle of the data area.
type NoteLayer struct{ Text string }

// Plot implements plot.Plotter.
func (n NoteLayer) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := textStyle(TickSize)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	w, h := sty.Width(n.Text), sty.Height(n.Text)
	mid := c.Center()
	box := vg.Rectangle{Min: vg.Point{X: mid.X - w/2 - keyPad, Y: mid.Y - h/2 - keyPad}, Max: vg.Point{X: mid.X + w/2 + keyPad, Y: mid.Y + h/2 + keyPad}}
	c.FillPolygon(color.White, []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}})
	c.FillText(sty, mid, n.Text)
}
