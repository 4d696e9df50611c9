package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pdfPage renders a PDF's first page to pixels with poppler's pdftoppm at dpi (a reader independent of
// the writer).
func pdfPage(t *testing.T, pdf []byte, dpi int) image.Image {
	t.Helper()
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm (poppler-utils) is not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(pdftoppm, "-r", itoa(dpi), "-png", "-singlefile", filepath.Join(dir, "f.pdf"), filepath.Join(dir, "f")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func itoa(n int) string {
	return string(rune('0'+n/100)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
}

// A figure's PDF, rendered back by pdftoppm, shows what its PNG (gonum's raster canvas) shows: a Fig. 2
// with a scatter of 400 circles filled and outlined in two colours, search paths, arrows, text and a
// legend, and a cp-diff with heat maps, contours and colour bars. The two renderers anti-alias edges
// differently, so single pixels may differ; a circle drawn in the wrong place, a wrong arc, a lost
// colour or a stroke painted as a fill changes whole areas.
func TestPDFDrawsAsThePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := Labelled{}
	for i := range 400 {
		c := i % 2
		data.X = append(data.X, float32(2*c-1)+float32(rng.NormFloat64())*0.4, float32(2*c-1)+float32(rng.NormFloat64())*0.4)
		data.Y = append(data.Y, c)
	}
	var points, vectors []float32
	for i := range 7 {
		for j := range 7 {
			x, y := -2+float32(i)*2/3, -2+float32(j)*2/3
			points = append(points, x, y)
			vectors = append(vectors, -1-x, -1-y)
		}
	}
	var panels []GeneratorPanel
	for _, name := range []string{"Wachter", "ECCCo (no EBM)", "ECCCo (no CP)", "ECCCo"} {
		panels = append(panels, GeneratorPanel{
			Generator: name,
			Field:     &VectorField{Points: points, Vectors: vectors},
			Path:      Path{Steps: []float32{1, 1, 0.2, 0.5, -0.9, -1}, From: 1, To: 0},
			Samples:   []float32{-1, -1.1, -0.9, -1, -1.2, -0.7},
		})
	}
	poc, err := POC(data, panels, []string{"class 0", "class 1"})
	if err != nil {
		t.Fatal(err)
	}
	n := 20
	surface := func(f func(x, y float64) float64) Surface {
		s := Surface{}
		for i := range n {
			s.X = append(s.X, -2+4*float64(i)/float64(n-1))
			s.Y = append(s.Y, -2+4*float64(i)/float64(n-1))
		}
		for _, y := range s.Y {
			row := make([]float64, n)
			for ix, x := range s.X {
				row[ix] = f(x, y)
			}
			s.Z = append(s.Z, row)
		}
		return s
	}
	setSize := surface(func(x, y float64) float64 { return map[bool]float64{true: 2, false: 1}[math.Abs(x+y) < 0.5] })
	setSize.Levels = []float64{1.5}
	smooth := surface(func(x, y float64) float64 { return 2 / (1 + math.Exp(4*math.Abs(x+y)-2)) })
	loss := surface(func(x, y float64) float64 { return math.Log1p(math.Exp(-(x + y))) })
	cp, err := CPDiff(&data, setSize, smooth, loss, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]Figure{"fig2": poc, "cp-diff": cp} {
		const dpi = 100
		f.DPI = dpi
		rawPNG, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(bytes.NewReader(rawPNG))
		if err != nil {
			t.Fatal(err)
		}
		rawPDF, err := f.PDF()
		if err != nil {
			t.Fatal(err)
		}
		got := pdfPage(t, rawPDF, dpi)
		wb, gb := want.Bounds(), got.Bounds()
		if d := max(abs(wb.Dx()-gb.Dx()), abs(wb.Dy()-gb.Dy())); d > 1 {
			t.Fatalf("%s: PNG %v, PDF page %v pixels", name, wb.Size(), gb.Size())
		}
		mean, share := pixelDifference(want, got)
		w, h := min(wb.Dx(), gb.Dx()), min(wb.Dy(), gb.Dy())
		t.Logf("%s: %d × %d pixels, mean difference %.4f, %.2f %% of the pixels differ by more than half", name, w, h, mean, 100*share)
		if mean > 0.04 || share > 0.025 {
			t.Errorf("%s: the PDF does not draw what the PNG does: mean difference %.4f (at most 0.04), %.2f %% of the pixels differ by more than half (at most 2.5 %%)", name, mean, 100*share)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func absf(v float64) float64 { return math.Abs(v) }

// pdfScene draws thick strokes, arcs, curves, circles filled and outlined in two colours, a
// translucent fill and colours set inside Push/Pop, large enough that anti-aliased edges are a small
// part of the picture. The translucent fill is a colour with alpha, which a PDF must not get
// premultiplied.
func pdfScene(c vg.Canvas) {
	pt := func(x, y float64) vg.Point { return vg.Point{X: vg.Length(x), Y: vg.Length(y)} }
	red, blue, green := color.NRGBA{R: 220, A: 255}, color.NRGBA{B: 200, A: 255}, color.NRGBA{G: 160, A: 255}
	rect := func(x0, y0, x1, y1 float64) vg.Path {
		var p vg.Path
		p.Move(pt(x0, y0))
		p.Line(pt(x1, y0))
		p.Line(pt(x1, y1))
		p.Line(pt(x0, y1))
		p.Close()
		return p
	}
	c.SetColor(color.White)
	c.Fill(rect(0, 0, 300, 200))
	c.SetColor(red)
	c.SetLineWidth(6)
	var zig vg.Path
	zig.Move(pt(10, 10))
	zig.Line(pt(80, 60))
	zig.Line(pt(150, 10))
	c.Stroke(zig)
	// Scatter glyphs: a disk in blue, its ring in green, as gonum's circle glyph draws them.
	for i := range 4 {
		ctr := pt(40+60*float64(i), 150)
		var disk vg.Path
		disk.Move(pt(40+60*float64(i)+18, 150))
		disk.Arc(ctr, 18, 0, 2*math.Pi)
		disk.Close()
		c.Push()
		c.SetColor(blue)
		c.Fill(disk)
		c.SetColor(green)
		c.SetLineWidth(5)
		c.Stroke(disk)
		c.Pop()
	}
	// Back outside the Push: red and the 6-point line again.
	var quarter vg.Path
	quarter.Move(pt(260, 20))
	quarter.Arc(pt(220, 20), 40, 0, math.Pi/2)
	c.Stroke(quarter)
	var curves vg.Path
	curves.Move(pt(20, 100))
	curves.QuadTo(pt(60, 60), pt(100, 100))
	curves.CubeTo(pt(120, 140), pt(160, 60), pt(190, 100))
	c.Stroke(curves)
	c.SetColor(color.NRGBA{G: 120, B: 255, A: 128})
	c.Fill(rect(200, 60, 290, 110))
}

// The scene drawn by the PDF canvas and rendered back by pdftoppm matches gonum's raster canvas
// (vgimg) pixel for pixel but at anti-aliased edges.
func TestPDFCanvasDrawsTheScene(t *testing.T) {
	const dpi = 100
	w, h := vg.Length(300), vg.Length(200)
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	pdfScene(img)
	var raw bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	want, err := png.Decode(&raw)
	if err != nil {
		t.Fatal(err)
	}
	pc := newPDFCanvas(w, h)
	pdfScene(pc)
	var doc bytes.Buffer
	if _, err := pc.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	got := pdfPage(t, doc.Bytes(), dpi)
	mean, share := pixelDifference(want, got)
	t.Logf("mean difference %.4f, %.2f %% of the pixels differ by more than half", mean, 100*share)
	if mean > 0.008 || share > 0.002 {
		t.Errorf("the PDF does not draw the scene: mean difference %.4f (at most 0.008), %.2f %% of the pixels differ by more than half (at most 0.2 %%)", mean, 100*share)
	}
}

// pixelDifference compares two renderings of one picture: the mean over pixels of the largest channel
// difference (0–1), and the share of pixels where it exceeds one half.
func pixelDifference(want, got image.Image) (mean, share float64) {
	wb, gb := want.Bounds(), got.Bounds()
	var sum float64
	far := 0
	w, h := min(wb.Dx(), gb.Dx()), min(wb.Dy(), gb.Dy())
	for y := range h {
		for x := range w {
			r1, g1, b1, _ := want.At(wb.Min.X+x, wb.Min.Y+y).RGBA()
			r2, g2, b2, _ := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
			d := max(absf(float64(r1)-float64(r2)), absf(float64(g1)-float64(g2)), absf(float64(b1)-float64(b2))) / 0xffff
			sum += d
			if d > 0.5 {
				far++
			}
		}
	}
	return sum / float64(w*h), float64(far) / float64(w*h)
}
