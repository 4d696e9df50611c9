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

// pdfContext is a drawing state of the canvas's stack.
type pdfContext struct {
	width vg.Length
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
		stack:  make([]pdfContext, 1),
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

// SetLineWidth implements vg.Canvas.
func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(c.unit(w))
}

// SetLineDash implements vg.Canvas.
func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

// SetColor implements vg.Canvas.
func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := clr.RGBA()
	ri, gi, bi := int(r>>8), int(g>>8), int(b>>8)
	c.doc.SetFillColor(ri, gi, bi)
	c.doc.SetDrawColor(ri, gi, bi)
	c.doc.SetTextColor(ri, gi, bi)
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
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
		c.path(p, "D")
	}
}

// Fill implements vg.Canvas.
func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path draws a vg.Path in the style of fpdf's DrawPath ("D" stroke, "F" fill).
func (c *pdfCanvas) path(path vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range path {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = c.point(comp.Pos)
			c.doc.MoveTo(x0, y0)
		case vg.LineComp:
			c.doc.LineTo(c.point(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := c.point(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.point(comp.Control[0])
				c.doc.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.point(comp.Control[0])
				dx, dy := c.point(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			default:
				c.fail(fmt.Errorf("a curve with %d control points", len(comp.Control)))
				return
			}
		case vg.CloseComp:
			c.doc.LineTo(x0, y0)
			c.doc.ClosePath()
		default:
			c.fail(fmt.Errorf("unknown path component %d", comp.Type))
			return
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	c.doc.LineTo(c.point(vg.Point{
		X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start)),
		Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start)),
	}))
	r := c.unit(comp.Radius)
	const deg = 180 / math.Pi
	beg := comp.Start * deg
	c.doc.Arc(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, comp.Angle*deg, beg, beg+comp.Angle*deg, style)
	c.doc.MoveTo(c.point(vg.Point{
		X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start+comp.Angle)),
		Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start+comp.Angle)),
	}))
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

// flipVertical returns a copy of img with its rows in reverse order.
func flipVertical(img image.Image) image.Image {
	b := img.Bounds()
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
