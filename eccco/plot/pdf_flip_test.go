package plot

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// An image whose top half is white and bottom half black must print so in the PDF too: rendered back to
// pixels by poppler's pdftoppm (a reader independent of the writer), the grid's top rows are light and
// its bottom rows dark, as in the PNG.
func TestPDFImagesAreUpright(t *testing.T) {
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm (poppler-utils) is not installed")
	}
	const n = 28
	img := make([]float32, n*n)
	for i := range img {
		img[i] = -1 // black
		if i < n*n/2 {
			img[i] = 1 // white top half
		}
	}
	g, err := ImageRow([][]float32{img}, nil, n, n)
	if err != nil {
		t.Fatal(err)
	}
	g.Gap = -1
	f, err := g.Figure()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := f.PDF()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g.pdf"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(pdftoppm, "-r", "150", "-png", "-singlefile", filepath.Join(dir, "g.pdf"), filepath.Join(dir, "g")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	fh, err := os.Open(filepath.Join(dir, "g.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	page, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	// The mean brightness of the page's upper and lower thirds: the picture fills most of the page, its
	// white half on top.
	b := page.Bounds()
	mean := func(y0, y1 int) float64 {
		var s float64
		for y := y0; y < y1; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, _, _, _ := page.At(x, y).RGBA()
				s += float64(r) / 0xffff
			}
		}
		return s / float64((y1-y0)*b.Dx())
	}
	h := b.Dy()
	top, bottom := mean(b.Min.Y+h/6, b.Min.Y+h/3), mean(b.Min.Y+2*h/3, b.Min.Y+5*h/6)
	if top < 0.7 || bottom > 0.3 {
		t.Errorf("PDF upside down or blank: mean brightness of the upper third %.2f, lower third %.2f (want light above dark)", top, bottom)
	}
}
