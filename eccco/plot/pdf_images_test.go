package plot

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"gonum.org/v1/plot/vg"
)

// cp-diff.pdf differed between identical runs (3 different files from 4): fpdf writes images of equal
// width in map order. Two different equal-width images drawn on the PDF canvas now give the same bytes
// on every try (without the fix, 20 tries agree with probability about 2⁻¹⁹).
func TestPDFImagesDeterministic(t *testing.T) {
	img := func(c color.Color) image.Image {
		m := image.NewRGBA64(image.Rect(0, 0, 8, 4))
		for y := range 4 {
			for x := range 8 {
				m.Set(x, y, c)
			}
		}
		return m
	}
	a, b := img(color.RGBA{255, 0, 0, 255}), img(color.RGBA{0, 0, 255, 255})
	render := func() []byte {
		c := newPDFCanvas(2*vg.Inch, vg.Inch)
		c.DrawImage(vg.Rectangle{Max: vg.Point{X: vg.Inch, Y: vg.Inch}}, a)
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: vg.Inch}, Max: vg.Point{X: 2 * vg.Inch, Y: vg.Inch}}, b)
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	first := render()
	for i := range 20 {
		if !bytes.Equal(render(), first) {
			t.Fatalf("try %d gave other bytes", i+2)
		}
	}
	// The widened image is the same picture: every pixel repeated.
	w := widen(a, 3)
	if w.Bounds().Dx() != 24 || w.Bounds().Dy() != 4 {
		t.Fatalf("widened to %v", w.Bounds())
	}
	r0, g0, b0, a0 := a.At(5, 2).RGBA()
	for k := range 3 {
		if r, g, bb, aa := w.At(15+k, 2).RGBA(); r != r0 || g != g0 || bb != b0 || aa != a0 {
			t.Errorf("pixel %d of the widened image is %v, want %v", 15+k, w.At(15+k, 2), a.At(5, 2))
		}
	}
}
