package plot

import (
	"image"
	"image/color"
	"strings"
	"sync"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdfCanvas is a vgpdf canvas whose text is encoded for its fonts: vgpdf sets text in code page 1252 but
// passes Go's UTF-8 strings through, which garbles every non-ASCII character. Characters of code page
// 1252 (é, ±, ×, –, …) are encoded; a few others the figures use are spelled out (≥ as ">=", Ω as
// "Omega", ↓ as "(lower is better)"); anything else becomes "?". PNG and SVG output keep the text as is.
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

// FillString implements vg.Canvas.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.Canvas.FillString(f, pt, cp1252(s))
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
