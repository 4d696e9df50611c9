// The PDF canvas below follows gonum/plot's vg/vgpdf (Copyright ©2015 The Gonum Authors; BSD-style
// licence, gonum.org/v1/plot LICENSE) in its drawing, and differs in its fonts, images and text.

package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"

	"codeberg.org/go-pdf/fpdf"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas is a vg.Canvas that draws a one-page PDF. It is vgpdf's drawing with three changes:
//
//   - Fonts are embedded as Unicode (Identity-H) subsets holding only the glyphs the figure uses, with a
//     ToUnicode map: text in any script the font has (→, ≥, Ω, λ, q̂) is set as text, copied and searched
//     as typed; vgpdf embeds the whole font file in code page 1252, which has none of those characters.
//   - A combining mark (the circumflex of q̂) is drawn as its glyph's outline centred over the character
//     before it, as the PNG shows it; the PDF's text keeps the base character.
//   - Images are flipped to the PDF's row order and given distinct widths (DrawImage).
//   - Paths are written with two decimals of a point, arcs as cubic Béziers, a lone circle (a scatter
//     plot's glyph) as one fixed path moved into place, and the colour, alpha, line width and dash are
//     set only where they change the PDF's graphics state, fill and stroke apart: a scatter of 10,000
//     points alternating fill and outline sets its colours once, not 20,000 times.
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []pdfContext
	fonts map[string]bool // the fonts added to doc, by name
	// widths are the widths of the images drawn so far (DrawImage).
	widths    map[int]bool
	numImages int
	err       error // the first error of a drawing call, reported by WriteTo
}

// pdfContext is a drawing state of the canvas's stack: what the canvas was asked for (width, colour,
// dash) and what the PDF's graphics state holds, which a Pop (Q) restores with it ("" or a negative
// width: not known, set before the next use).
type pdfContext struct {
	width  vg.Length
	colour color.Color
	dash   string // the dash pattern asked for, as the PDF writes it
	// The PDF's state: fill and stroke colours, alpha, line width and dash as written.
	fill, stroke, alpha, lineWidth, lineDash string
}

// pdfDPI is the resolution of PDF user space: a point.
const pdfDPI = 72

var pdfOnce sync.Once

// newPDFCanvas makes a PDF canvas of the given size, with fixed dates and sorted catalogues (the same
// figure gives the same bytes).
func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	pdfOnce.Do(func() {
		fpdf.SetDefaultCreationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		fpdf.SetDefaultModificationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		fpdf.SetDefaultCatalogSort(true)
	})
	c := &pdfCanvas{
		doc:    fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}}),
		w:      w,
		h:      h,
		stack:  []pdfContext{{colour: color.Black, dash: "[] 0.00 d"}},
		fonts:  map[string]bool{},
		widths: map[int]bool{},
	}
	c.doc.SetMargins(0, 0, 0)
	c.doc.SetAutoPageBreak(false, 0)
	c.doc.AddPage()
	c.Push()
	c.Translate(vg.Point{X: 0, Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) context() *pdfContext { return &c.stack[len(c.stack)-1] }

// unit converts a length to PDF points.
func (c *pdfCanvas) unit(l vg.Length) float64 { return l.Dots(pdfDPI) }

func (c *pdfCanvas) point(pt vg.Point) (float64, float64) { return c.unit(pt.X), c.unit(pt.Y) }

// DPI implements vg.Canvas.
func (c *pdfCanvas) DPI() float64 { return pdfDPI }

// Size implements vg.CanvasSizer.
func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

// SetLineWidth implements vg.Canvas; the width is written before the next stroke that needs it.
func (c *pdfCanvas) SetLineWidth(w vg.Length) { c.context().width = w }

// SetLineDash implements vg.Canvas; the pattern is written before the next stroke that needs it.
func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range dashes {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pdfNum(c.unit(d)))
	}
	b.WriteString("] " + pdfNum(c.unit(offs)) + " d")
	c.context().dash = b.String()
}

// SetColor implements vg.Canvas; the colour is written before the next fill, stroke or text that
// needs it.
func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.context().colour = clr
}

// rgb is the asked-for colour as fpdf takes it: not premultiplied (Go's RGBA method is; the PDF
// applies its alpha itself), with its alpha in [0, 1].
func (c *pdfCanvas) rgb() (r, g, b int, alpha float64) {
	n := color.NRGBA64Model.Convert(c.context().colour).(color.NRGBA64)
	return int(n.R >> 8), int(n.G >> 8), int(n.B >> 8), float64(n.A) / math.MaxUint16
}

// useAlpha writes the asked-for alpha where the PDF's state holds another.
func (c *pdfCanvas) useAlpha() {
	ctx := c.context()
	_, _, _, a := c.rgb()
	if key := fmt.Sprintf("%.3f", a); ctx.alpha != key {
		c.doc.SetAlpha(a, "Normal")
		ctx.alpha = key
	}
}

// useFill writes the asked-for colour as the fill colour (which text uses too) where the PDF's state
// holds another.
func (c *pdfCanvas) useFill() {
	ctx := c.context()
	r, g, b, _ := c.rgb()
	if key := fmt.Sprint(r, g, b); ctx.fill != key {
		c.doc.SetFillColor(r, g, b)
		c.doc.SetTextColor(r, g, b)
		ctx.fill = key
	}
	c.useAlpha()
}

// useStroke writes the asked-for colour, line width and dash for a stroke where the PDF's state holds
// others.
func (c *pdfCanvas) useStroke() {
	ctx := c.context()
	r, g, b, _ := c.rgb()
	if key := fmt.Sprint(r, g, b); ctx.stroke != key {
		c.doc.SetDrawColor(r, g, b)
		ctx.stroke = key
	}
	if w := pdfNum(c.unit(ctx.width)); ctx.lineWidth != w {
		c.doc.RawWriteStr(w + " w")
		ctx.lineWidth = w
	}
	if ctx.lineDash != ctx.dash {
		c.doc.RawWriteStr(ctx.dash)
		ctx.lineDash = ctx.dash
	}
	c.useAlpha()
}

// pdfNum writes v with two decimals, the precision of fpdf's own paths (1/7200 inch), without a
// negative zero.
func pdfNum(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}

// Rotate implements vg.Canvas.
func (c *pdfCanvas) Rotate(r float64) { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }

// Translate implements vg.Canvas.
func (c *pdfCanvas) Translate(pt vg.Point) {
	x, y := c.point(pt)
	c.doc.TransformTranslate(x, y)
}

// Scale implements vg.Canvas.
func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

// Push implements vg.Canvas.
func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

// Pop implements vg.Canvas.
func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

// Stroke implements vg.Canvas.
func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.useStroke()
		c.path(p, "S")
	}
}

// Fill implements vg.Canvas.
func (c *pdfCanvas) Fill(p vg.Path) {
	c.useFill()
	c.path(p, "f")
}

// path writes a vg.Path and paints it with op ("S" stroke, "f" fill). Coordinates are turned into
// fpdf's (its origin at the top left: y is written as the page height minus y, as fpdf's own MoveTo
// does) under the transformations pushed so far. A path that is one full circle is written centred on
// the origin and moved into place by a "cm" inside q … Q: every circle of a scatter plot then writes
// the same bytes but its centre, which the PDF's compression packs well.
func (c *pdfCanvas) path(path vg.Path, op string) {
	k := c.doc.GetConversionRatio()
	_, h := c.doc.GetPageSize()
	xy := func(pt vg.Point) (string, string) {
		x, y := c.point(pt)
		return pdfNum(x * k), pdfNum((h - y) * k)
	}
	var b strings.Builder
	if len(path) >= 2 && path[0].Type == vg.MoveComp && path[1].Type == vg.ArcComp &&
		math.Abs(path[1].Angle) >= 2*math.Pi && (len(path) == 2 || len(path) == 3 && path[2].Type == vg.CloseComp) {
		arc := path[1]
		cx, cy := xy(arc.Pos)
		b.WriteString("q 1 0 0 1 " + cx + " " + cy + " cm\n")
		arc.Pos = vg.Point{}
		local := func(pt vg.Point) (string, string) {
			x, y := c.point(pt)
			return pdfNum(x * k), pdfNum(-y * k) // fpdf's y, flipped, about the centre
		}
		writeArc(&b, arc, local, true)
		b.WriteString("h " + op + " Q")
		c.doc.RawWriteStr(b.String())
		return
	}
	var start, cur vg.Point // the current subpath's first point, where Close returns, and the current point
	for _, comp := range path {
		switch comp.Type {
		case vg.MoveComp:
			start, cur = comp.Pos, comp.Pos
			x, y := xy(comp.Pos)
			b.WriteString(x + " " + y + " m\n")
		case vg.LineComp:
			x, y := xy(comp.Pos)
			b.WriteString(x + " " + y + " l\n")
			cur = comp.Pos
		case vg.ArcComp:
			writeArc(&b, comp, xy, false)
			end := comp.Start + comp.Angle
			cur = vg.Point{X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(end)), Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(end))}
		case vg.CurveComp:
			x, y := xy(comp.Pos)
			switch len(comp.Control) {
			case 1:
				// A quadratic Bézier as the cubic it equals (fpdf's CurveTo writes "v", which takes
				// the current point as the first control point: another curve).
				q := comp.Control[0]
				p0 := cur
				c1 := vg.Point{X: p0.X + 2*(q.X-p0.X)/3, Y: p0.Y + 2*(q.Y-p0.Y)/3}
				c2 := vg.Point{X: comp.Pos.X + 2*(q.X-comp.Pos.X)/3, Y: comp.Pos.Y + 2*(q.Y-comp.Pos.Y)/3}
				x1, y1 := xy(c1)
				x2, y2 := xy(c2)
				b.WriteString(x1 + " " + y1 + " " + x2 + " " + y2 + " " + x + " " + y + " c\n")
			case 2:
				x1, y1 := xy(comp.Control[0])
				x2, y2 := xy(comp.Control[1])
				b.WriteString(x1 + " " + y1 + " " + x2 + " " + y2 + " " + x + " " + y + " c\n")
			default:
				c.fail(fmt.Errorf("a curve with %d control points", len(comp.Control)))
				return
			}
			cur = comp.Pos
		case vg.CloseComp:
			x, y := xy(start)
			b.WriteString(x + " " + y + " l h\n")
			cur = start
		default:
			c.fail(fmt.Errorf("unknown path component %d", comp.Type))
			return
		}
	}
	if b.Len() == 0 {
		return
	}
	b.WriteString(op)
	c.doc.RawWriteStr(b.String())
}

// writeArc writes an arc as cubic Béziers of at most a quarter turn each (control points at
// 4/3·tan(θ/4) of the radius along the tangents, the standard approximation, within 0.03 % of the
// radius), after a line to its first point, as vg.Path's Arc means; first says the arc starts a
// subpath (a move, not a line).
func writeArc(b *strings.Builder, arc vg.PathComp, xy func(vg.Point) (string, string), first bool) {
	at := func(a float64, r vg.Length) vg.Point {
		return vg.Point{X: arc.Pos.X + r*vg.Length(math.Cos(a)), Y: arc.Pos.Y + r*vg.Length(math.Sin(a))}
	}
	x, y := xy(at(arc.Start, arc.Radius))
	if first {
		b.WriteString(x + " " + y + " m\n")
	} else {
		b.WriteString(x + " " + y + " l\n")
	}
	n := max(1, int(math.Ceil(math.Abs(arc.Angle)/(math.Pi/2)-1e-9)))
	theta := arc.Angle / float64(n)
	kk := 4.0 / 3 * math.Tan(theta/4)
	r := arc.Radius
	for i := range n {
		a0 := arc.Start + float64(i)*theta
		a1 := a0 + theta
		p0, p3 := at(a0, r), at(a1, r)
		p1 := vg.Point{X: p0.X - vg.Length(kk)*r*vg.Length(math.Sin(a0)), Y: p0.Y + vg.Length(kk)*r*vg.Length(math.Cos(a0))}
		p2 := vg.Point{X: p3.X + vg.Length(kk)*r*vg.Length(math.Sin(a1)), Y: p3.Y - vg.Length(kk)*r*vg.Length(math.Cos(a1))}
		x1, y1 := xy(p1)
		x2, y2 := xy(p2)
		x3, y3 := xy(p3)
		b.WriteString(x1 + " " + y1 + " " + x2 + " " + y2 + " " + x3 + " " + y3 + " c\n")
	}
}

// fail keeps the first error of a drawing call (vg.Canvas's methods return none) for WriteTo.
func (c *pdfCanvas) fail(err error) {
	if c.err == nil {
		c.err = fmt.Errorf("pdf: %w", err)
	}
}

// setFont adds f's font to the document on first use, as a Unicode font that fpdf subsets to the
// glyphs used, and selects it.
func (c *pdfCanvas) setFont(f font.Face) bool {
	name := f.Name()
	if !c.fonts[name] {
		var raw bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &raw); err != nil {
			c.fail(fmt.Errorf("reading the font %s: %w", name, err))
			return false
		}
		c.doc.AddUTF8FontFromBytes(name, "", raw.Bytes())
		if err := c.doc.Error(); err != nil {
			c.fail(fmt.Errorf("adding the font %s: %w", name, err))
			return false
		}
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", c.unit(f.Font.Size))
	return true
}

// FillString implements vg.Canvas: s set as text with its baseline's left end at pt. A combining mark
// is not set as text but drawn as its glyph's outline over the character before it (pdfCanvas).
func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 || s == "" || !c.setFont(f) {
		return
	}
	c.useFill()
	var run strings.Builder
	var prev vg.Length // the advance of the character before, over which a combining mark is centred
	flush := func() {
		if run.Len() == 0 {
			return
		}
		t := run.String()
		c.text(f, pt, t)
		pt.X += f.Width(t)
		rs := []rune(t)
		prev = f.Width(string(rs[len(rs)-1]))
		run.Reset()
	}
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			run.WriteRune(r)
			continue
		}
		flush()
		if adv, ok := c.fillGlyph(f, pt, r, prev); ok {
			pt.X += adv
			prev = adv
		}
	}
	flush()
}

// text sets s in f's font (selected) with its baseline's left end at pt. fpdf's origin is the top left
// corner, so the text is set in a frame flipped back.
func (c *pdfCanvas) text(f font.Face, pt vg.Point, s string) {
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	c.Scale(1, -1)
	_, h := c.doc.GetFontSize()
	d := c.doc.GetFontDesc(f.Name(), "")
	top := 0.81 * h // fpdf's fallback where the font gives no ascent
	if d.Ascent != d.Descent {
		top = -float64(d.Ascent) * h / float64(d.Ascent-d.Descent)
	}
	c.doc.MoveTo(-c.doc.GetCellMargin(), top)
	c.doc.CellFormat(c.doc.GetStringWidth(s), h, s, "", 0, "BL", false, 0, "")
}

// fillGlyph fills the outline of r's glyph in f with its origin at pt and returns its advance; ok is
// false where the font has no glyph for r. A combining mark is given over > 0, the advance of the
// character before, and is centred over it.
func (c *pdfCanvas) fillGlyph(f font.Face, pt vg.Point, r rune, over vg.Length) (vg.Length, bool) {
	var buf sfnt.Buffer
	idx, err := f.Face.GlyphIndex(&buf, r)
	if err != nil || idx == 0 {
		return 0, false
	}
	upem := fixed.Int26_6(f.Face.UnitsPerEm())
	segs, err := f.Face.LoadGlyph(&buf, idx, upem, nil)
	if err != nil {
		return 0, false
	}
	adv, err := f.Face.GlyphAdvance(&buf, idx, upem, xfont.HintingNone)
	if err != nil {
		return 0, false
	}
	scale := f.Font.Size / vg.Length(upem)
	if over > 0 && len(segs) > 0 {
		lo, hi := segs[0].Args[0].X, segs[0].Args[0].X
		for _, sg := range segs {
			for _, a := range sg.Args[:segArgs(sg.Op)] {
				lo, hi = min(lo, a.X), max(hi, a.X)
			}
		}
		pt.X -= over/2 + vg.Length(lo+hi)/2*scale
	}
	at := func(p fixed.Point26_6) vg.Point {
		return vg.Point{X: pt.X + vg.Length(p.X)*scale, Y: pt.Y - vg.Length(p.Y)*scale}
	}
	var path vg.Path
	open := false
	for _, sg := range segs {
		switch sg.Op {
		case sfnt.SegmentOpMoveTo:
			if open {
				path.Close()
			}
			path.Move(at(sg.Args[0]))
			open = true
		case sfnt.SegmentOpLineTo:
			path.Line(at(sg.Args[0]))
		case sfnt.SegmentOpQuadTo:
			path.QuadTo(at(sg.Args[0]), at(sg.Args[1]))
		case sfnt.SegmentOpCubeTo:
			path.CubeTo(at(sg.Args[0]), at(sg.Args[1]), at(sg.Args[2]))
		}
	}
	if open {
		path.Close()
		c.Fill(path)
	}
	return vg.Length(adv) * scale, true
}

// segArgs is the number of points a glyph segment of op uses.
func segArgs(op sfnt.SegmentOp) int {
	switch op {
	case sfnt.SegmentOpQuadTo:
		return 2
	case sfnt.SegmentOpCubeTo:
		return 3
	}
	return 1
}

// DrawImage implements vg.Canvas. The canvas's y axis points up and an image's rows go down, so the
// image is flipped vertically first (else every picture would print upside down). Then it gets a width
// no earlier image of the canvas has: fpdf orders a PDF's images by width and leaves images of equal
// width in map order (random), which would make a figure with two equal-width rasters (cp-diff's heat
// maps) differ between runs; an image whose width is taken is widened by an integer factor, each pixel
// repeated, which draws the same picture.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	img = flipVertical(img)
	w := img.Bounds().Dx()
	k := 1
	for c.widths[w*k] {
		k++
	}
	c.widths[w*k] = true
	if k > 1 {
		img = widen(img, k)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.fail(fmt.Errorf("encoding an image: %w", err))
		return
	}
	c.useAlpha()
	c.numImages++
	name := fmt.Sprintf("image_%03d.png", c.numImages)
	opts := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	x, y := c.point(rect.Min)
	wd, ht := c.point(rect.Size())
	c.doc.ImageOptions(name, x, y, wd, ht, false, opts, 0, "")
}

// widen repeats every pixel of img k times along x.
func widen(img image.Image, k int) image.Image {
	b := img.Bounds()
	if g, ok := img.(*image.Gray); ok {
		out := image.NewGray(image.Rect(0, 0, b.Dx()*k, b.Dy()))
		for y := range b.Dy() {
			for x := range b.Dx() {
				px := g.GrayAt(b.Min.X+x, b.Min.Y+y)
				for i := range k {
					out.SetGray(x*k+i, y, px)
				}
			}
		}
		return out
	}
	out := image.NewNRGBA64(image.Rect(0, 0, b.Dx()*k, b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			px := color.NRGBA64Model.Convert(img.At(x, y))
			for i := range k {
				out.Set((x-b.Min.X)*k+i, y-b.Min.Y, px)
			}
		}
	}
	return out
}

// flipVertical returns a copy of img with its rows in reverse order. A grey image stays grey, so the
// PDF stores one byte per pixel (DeviceGray), not three.
func flipVertical(img image.Image) image.Image {
	b := img.Bounds()
	if g, ok := img.(*image.Gray); ok {
		out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := range b.Dy() {
			copy(out.Pix[(b.Dy()-1-y)*out.Stride:][:b.Dx()], g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):][:b.Dx()])
		}
		return out
	}
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x, b.Dy()-1-y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// WriteTo implements io.WriterTo: it closes the canvas and writes the PDF. It fails with the first
// error of a drawing call, or of fpdf, before writing anything.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.Pop()
	c.doc.Close()
	var buf bytes.Buffer
	if err := c.doc.Output(&buf); err != nil {
		return 0, fmt.Errorf("pdf: %w", err)
	}
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}
