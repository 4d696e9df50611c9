package plot

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// StarGlyph draws a filled five-pointed star (SGLD samples), its outer points at the glyph's radius.
type StarGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (StarGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.Fill(starPath(pt, sty.Radius))
}

func starPath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	for i := range 10 {
		rad := r
		if i%2 == 1 {
			rad = r * 0.42
		}
		a := math.Pi/2 + float64(i)*math.Pi/5
		q := vg.Point{X: pt.X + rad*vg.Length(math.Cos(a)), Y: pt.Y + rad*vg.Length(math.Sin(a))}
		if i == 0 {
			p.Move(q)
		} else {
			p.Line(q)
		}
	}
	p.Close()
	return p
}

// DiamondGlyph draws a filled diamond (a square standing on a corner).
type DiamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (DiamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.Fill(diamondPath(pt, sty.Radius))
}

func diamondPath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	return p
}

func circlePath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Arc(pt, r, 0, 2*math.Pi)
	p.Close()
	return p
}

func squarePath(pt vg.Point, r vg.Length) vg.Path {
	r *= 0.85
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Close()
	return p
}

// Shape names the filled shapes of EdgedGlyph.
type Shape int

// The shapes.
const (
	Circle Shape = iota
	Square
	Diamond
	Star
)

// EdgedGlyph draws a filled shape in the glyph's colour with an outline of colour Edge and width Width,
// so that markers stay visible over data and heat maps.
type EdgedGlyph struct {
	Shape Shape
	Edge  color.Color
	Width vg.Length
}

// DrawGlyph implements draw.GlyphDrawer.
func (g EdgedGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	switch g.Shape {
	case Square:
		p = squarePath(pt, sty.Radius)
	case Diamond:
		p = diamondPath(pt, sty.Radius)
	case Star:
		p = starPath(pt, sty.Radius)
	default:
		p = circlePath(pt, sty.Radius)
	}
	c.SetColor(sty.Color)
	c.Fill(p)
	if g.Edge != nil && g.Width > 0 {
		c.SetLineStyle(draw.LineStyle{Color: g.Edge, Width: g.Width})
		c.Stroke(p)
	}
}

// drawArrow strokes a line from a to b with a filled head at b of length head (shortened for short
// arrows).
func drawArrow(c *draw.Canvas, sty draw.LineStyle, a, b vg.Point, head vg.Length) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	if n == 0 || math.IsNaN(n) {
		return
	}
	h := math.Min(float64(head), 0.45*n)
	ux, uy := dx/n, dy/n
	// The shaft stops where the head begins, so the line cap does not poke through the tip.
	base := vg.Point{X: b.X - vg.Length(ux*h*0.8), Y: b.Y - vg.Length(uy*h*0.8)}
	c.StrokeLines(sty, []vg.Point{a, base})
	const spread = 0.42 // half-angle tangent of the head (about 23°)
	left := vg.Point{X: b.X - vg.Length(ux*h-uy*h*spread), Y: b.Y - vg.Length(uy*h+ux*h*spread)}
	right := vg.Point{X: b.X - vg.Length(ux*h+uy*h*spread), Y: b.Y - vg.Length(uy*h-ux*h*spread)}
	var p vg.Path
	p.Move(b)
	p.Line(left)
	p.Line(right)
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
}
