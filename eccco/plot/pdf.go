package plot

import (
	"image"
	"image/color"
	"strings"
	"sync"
	"time"
	"unicode"

	"codeberg.org/go-pdf/fpdf"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdfCanvas is a vgpdf canvas whose text is encoded for its fonts: vgpdf sets text in code page 1252 but
// passes Go's UTF-8 strings through, which garbles every non-ASCII character. Characters of code page
// 1252 (é, ±, ×, –, …) are set as text; any other character the font has (→, ≥, ≤, Ω, q̂'s circumflex)
// is drawn as its glyph's outline (FillString); one it lacks is spelled out (cp1252) or becomes "?".
//
// Its images get distinct widths: fpdf orders a PDF's images by width and leaves images of equal width in
// map order (random), so a figure with two equal-width rasters (cp-diff's heat maps) gave different bytes
// on every run. An image whose width an earlier image of the canvas has is widened by an integer factor,
// each pixel repeated, which draws the same picture.
type pdfCanvas struct {
	*vgpdf.Canvas
	widths map[int]bool
}

var pdfOnce sync.Once

// newPDFCanvas makes a PDF canvas of the given size, with fixed dates and sorted catalogues (the same
// figure gives the same bytes).
func newPDFCanvas(w, h vg.Length) pdfCanvas {
	pdfOnce.Do(func() {
		fpdf.SetDefaultCreationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		fpdf.SetDefaultModificationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		fpdf.SetDefaultCatalogSort(true)
	})
	return pdfCanvas{Canvas: vgpdf.New(w, h), widths: map[int]bool{}}
}

// DrawImage implements vg.Canvas. vgpdf places an image's rows from the bottom of the rectangle up (the
// canvas's y axis points up, the image's down), so every picture would print upside down; the image is
// flipped vertically first, so that the PDF shows what the PNG and SVG show. Then it gets its distinct
// width (pdfCanvas).
func (c pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	img = flipVertical(img)
	w := img.Bounds().Dx()
	f := 1
	for c.widths[w*f] {
		f++
	}
	c.widths[w*f] = true
	if f > 1 {
		img = widen(img, f)
	}
	c.Canvas.DrawImage(rect, img)
}

// widen repeats every pixel of img f times along x.
func widen(img image.Image, f int) image.Image {
	b := img.Bounds()
	out := image.NewNRGBA64(image.Rect(0, 0, b.Dx()*f, b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			px := color.NRGBA64Model.Convert(img.At(x, y))
			for k := range f {
				out.Set((x-b.Min.X)*f+k, y-b.Min.Y, px)
			}
		}
	}
	return out
}

// FillString implements vg.Canvas. Runs of characters that code page 1252 has are set as text; any
// other character the font has a glyph for (→, ≥, ≤, Ω, a combining circumflex) is drawn as its glyph's
// outline, so that the PDF shows what the PNG shows; the rest is spelled out as cp1252 does.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	var run strings.Builder
	var prev vg.Length // the advance of the character before, over which a combining mark is centred
	flush := func() {
		if run.Len() == 0 {
			return
		}
		t := run.String()
		c.Canvas.FillString(f, pt, cp1252(t))
		pt.X += f.Width(t)
		rs := []rune(t)
		prev = f.Width(string(rs[len(rs)-1]))
		run.Reset()
	}
	for _, r := range s {
		if encodable(r) {
			run.WriteRune(r)
			continue
		}
		flush()
		over := vg.Length(0)
		if unicode.Is(unicode.Mn, r) {
			over = prev
		}
		adv, ok := c.fillGlyph(f, pt, r, over)
		if !ok {
			t := cp1252(string(r))
			c.Canvas.FillString(f, pt, t)
			adv = f.Width(t)
		}
		pt.X += adv
		prev = adv
	}
	flush()
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

// encodable reports whether code page 1252 has r.
func encodable(r rune) bool {
	if r < 0x80 {
		return true
	}
	_, ok := charmap.Windows1252.EncodeRune(r)
	return ok
}

// fillGlyph fills the outline of r's glyph in f with its origin at pt and returns its advance; ok is
// false where the font has no glyph for r. A combining mark is given over > 0, the advance of the
// character before, and is centred over it.
func (c pdfCanvas) fillGlyph(f font.Face, pt vg.Point, r rune, over vg.Length) (vg.Length, bool) {
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
		c.Canvas.Fill(path)
	}
	return vg.Length(adv) * scale, true
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

var spelled = map[rune]string{
	'≥': ">=", '≤': "<=", '≠': "!=", '−': "-", '′': "'", '″': "''", '→': "->", '←': "<-",
	'↓': "(lower is better)", '↑': "(higher is better)", '∇': "grad", '∞': "inf",
	'α': "alpha", 'β': "beta", 'γ': "gamma", 'ε': "epsilon", 'η': "eta", 'θ': "theta", 'κ': "kappa",
	'λ': "lambda", 'σ': "sigma", 'τ': "tau", 'Ω': "Omega", 'ω': "omega",
	'⁺': "+", '⁻': "-", '\u0302': "^", '₁': "1", '₂': "2", '₃': "3",
}

// cp1252 returns s encoded in code page 1252 (see pdfCanvas).
func cp1252(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case spelled[r] != "":
			b.WriteString(spelled[r])
		default:
			if c, ok := charmap.Windows1252.EncodeRune(r); ok {
				b.WriteByte(c)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}
