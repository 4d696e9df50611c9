package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// pattern returns an h×w image whose pixel (y, x) is a value unique to (id, y, x), so that a misplaced,
// flipped or transposed image is caught.
func pattern(id, h, w int) []float32 {
	img := make([]float32, h*w)
	for y := range h {
		for x := range w {
			img[y*w+x] = float32(-1 + 2*float64((id*37+y*5+x*11)%64)/63)
		}
	}
	return img
}

func matrixGrid(t *testing.T, n int) (*ImageGrid, [][]float32, [][][]float32) {
	t.Helper()
	const h, w = 4, 3
	originals := make([][]float32, n)
	cfs := make([][][]float32, n)
	names := make([]string, n)
	for i := range n {
		originals[i] = pattern(100+i, h, w)
		cfs[i] = make([][]float32, n)
		for j := range n {
			if i != j {
				cfs[i][j] = pattern(10*i+j, h, w)
			}
		}
		names[i] = string(rune('a' + i))
	}
	g, err := CounterfactualMatrix(originals, cfs, names, h, w)
	if err != nil {
		t.Fatal(err)
	}
	return g, originals, cfs
}

// The original of row i sits on the diagonal and the counterfactual into class j in column j: checked
// on the raster, pixel by pixel, and on the decoded PNG of the figure at every image pixel's centre.
func TestGridPutsOriginalsOnTheDiagonal(t *testing.T) {
	const n = 3
	g, originals, cfs := matrixGrid(t, n)
	want := func(i, j int) []float32 {
		if i == j {
			return originals[i]
		}
		return cfs[i][j]
	}
	raster, err := g.Raster()
	if err != nil {
		t.Fatal(err)
	}
	l := g.layout()
	if l.scale < 2 {
		t.Fatalf("scale %d: the test needs several PNG pixels per image pixel", l.scale)
	}
	f, err := g.Figure()
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != l.width || img.Bounds().Dy() != l.height {
		t.Fatalf("PNG is %v, the layout %d×%d", img.Bounds(), l.width, l.height)
	}
	for i := range n {
		for j := range n {
			o := l.cellOrigin(g, i, j)
			cell := g.CellBounds(i, j)
			for y := range g.Height {
				for x := range g.Width {
					v := Grey(want(i, j)[y*g.Width+x])
					for dy := range l.scale {
						for dx := range l.scale {
							if got := raster.GrayAt(o.X+x*l.scale+dx, o.Y+y*l.scale+dy).Y; got != v {
								t.Fatalf("raster cell (%d, %d), pixel (%d, %d): grey %d, want %d", i, j, y, x, got, v)
							}
						}
					}
					c := img.At(cell.Min.X+x*l.scale+l.scale/2, cell.Min.Y+y*l.scale+l.scale/2)
					r, gg, bb, _ := c.RGBA()
					if r>>8 != uint32(v) || gg>>8 != uint32(v) || bb>>8 != uint32(v) {
						t.Fatalf("PNG cell (%d, %d), pixel (%d, %d): %v, want grey %d", i, j, y, x, c, v)
					}
				}
			}
		}
	}
	// The gutter between cells is white.
	if got := raster.GrayAt(g.Width*l.scale, 0).Y; got != 255 {
		t.Errorf("gutter pixel %d, want white", got)
	}
	for i := range n {
		if g.Framed[i] != [2]int{i, i} {
			t.Errorf("framed cells %v, want the diagonal", g.Framed)
		}
	}
}

func TestGridRejectsBadInput(t *testing.T) {
	img := pattern(0, 2, 2)
	if _, err := CounterfactualMatrix([][]float32{img, img}, [][][]float32{{nil, img}}, []string{"0", "1"}, 2, 2); err == nil {
		t.Error("a missing row of counterfactuals was accepted")
	}
	if _, err := CounterfactualMatrix([][]float32{img}, [][][]float32{{nil, img[:3]}}, []string{"0", "1"}, 2, 2); err == nil {
		t.Error("an image of the wrong size was accepted")
	}
	if _, err := ImageRow([][]float32{img}, []string{"a", "b"}, 2, 2); err == nil {
		t.Error("more titles than images were accepted")
	}
	if _, err := Reconstructions([][]float32{img}, nil, 1, 2, 2); err == nil {
		t.Error("originals without reconstructions were accepted")
	}
}

func TestReconstructionsAndSampleGridLayout(t *testing.T) {
	var orig, rec [][]float32
	for i := range 5 {
		orig = append(orig, pattern(i, 2, 2))
		rec = append(rec, pattern(50+i, 2, 2))
	}
	g, err := Reconstructions(orig, rec, 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Rows: originals 0–2, their reconstructions, originals 3–4, theirs.
	if len(g.Cells) != 4 || len(g.Cells[2]) != 2 || &g.Cells[1][0][0] != &rec[0][0] || &g.Cells[2][1][0] != &orig[4][0] {
		t.Fatalf("unexpected layout: %d rows", len(g.Cells))
	}
	if g.RowTitles[0] != "original" || g.RowTitles[1] != "VAE" {
		t.Errorf("row titles %v", g.RowTitles)
	}
	l := g.layout()
	if gap01, gap12 := l.cellOrigin(g, 1, 0).Y-l.cellOrigin(g, 0, 0).Y, l.cellOrigin(g, 2, 0).Y-l.cellOrigin(g, 1, 0).Y; gap12 <= gap01 {
		t.Errorf("pairs are not set apart: row steps %d then %d", gap01, gap12)
	}
	s, err := SampleGrid([][][]float32{orig[:2], rec[:2]}, nil, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowTitles[1] != "1" || len(s.Cells) != 2 {
		t.Errorf("sample grid rows %v", s.RowTitles)
	}
}

func square(n int) []float32 {
	var v []float32
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		v = append(v, float32(math.Cos(a)), float32(math.Sin(a)))
	}
	return v
}

func testPOC(t *testing.T) (Figure, []GeneratorPanel) {
	t.Helper()
	data := Labelled{X: square(12), Y: []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}}
	var pts, vecs []float32
	for i := range 5 {
		for j := range 5 {
			x, y := -1.5+0.75*float64(i), -1.5+0.75*float64(j)
			pts = append(pts, float32(x), float32(y))
			vecs = append(vecs, float32(-x), float32(-y))
		}
	}
	var panels []GeneratorPanel
	for k, name := range []string{"Wachter", "ECCCo (no EBM)", "ECCCo (no CP)", "ECCCo"} {
		panels = append(panels, GeneratorPanel{Generator: name, Field: &VectorField{Points: pts, Vectors: vecs},
			Path:    Path{Steps: []float32{1, 0, 0.5, 0.2, 0.1, 0.3 + 0.1*float32(k)}, From: 1, To: 0},
			Samples: []float32{-0.5, -0.5, -0.6, -0.4}})
	}
	f, err := POC(data, panels, []string{"blue", "orange"})
	if err != nil {
		t.Fatal(err)
	}
	return f, panels
}

// Paths start at the given factual and end at the given counterfactual in the plotted data; each POC
// panel draws data, field, samples and path.
func TestPOCPanelsHoldTheirData(t *testing.T) {
	f, panels := testPOC(t)
	if f.Rows != 2 || f.Cols != 2 || len(f.Panels) != 4 {
		t.Fatalf("POC is %d × %d with %d panels, want 2 × 2", f.Rows, f.Cols, len(f.Panels))
	}
	for i, p := range f.Panels {
		if p.Plot.Title.Text != panels[i].Generator {
			t.Errorf("panel %d titled %q, want %q", i, p.Plot.Title.Text, panels[i].Generator)
		}
		var path *PathLayer
		var kinds []string
		for _, l := range p.Layers {
			switch l := l.(type) {
			case *PathLayer:
				path = l
				kinds = append(kinds, "path")
			case *DataLayer:
				kinds = append(kinds, "data")
			case *ArrowLayer:
				kinds = append(kinds, "field")
			case *SampleLayer:
				kinds = append(kinds, "samples")
				if l.Color != SampleYellow || len(l.XYs) != 2 {
					t.Errorf("panel %d: samples %v in %v", i, l.XYs, l.Color)
				}
			}
		}
		if got := strings.Join(kinds, ","); got != "data,field,samples,path" {
			t.Errorf("panel %d draws %s", i, got)
		}
		steps := panels[i].Path.Steps
		first, last := path.XYs[0], path.XYs[len(path.XYs)-1]
		if first.X != float64(steps[0]) || first.Y != float64(steps[1]) {
			t.Errorf("panel %d: path starts at %v, the factual is (%v, %v)", i, first, steps[0], steps[1])
		}
		if n := len(steps); last.X != float64(steps[n-2]) || last.Y != float64(steps[n-1]) || len(path.XYs) != n/2 {
			t.Errorf("panel %d: path ends at %v after %d points, the counterfactual is (%v, %v)", i, last, len(path.XYs), steps[n-2], steps[n-1])
		}
		if p.Plot.X.Min != f.Panels[0].Plot.X.Min || p.Plot.Y.Max != f.Panels[0].Plot.Y.Max {
			t.Errorf("panel %d has other axis ranges than panel 0", i)
		}
	}
	var labels []string
	for _, e := range f.Legend {
		labels = append(labels, e.Label)
	}
	for _, want := range []string{"blue", "orange", "SGLD samples", "factual, path", "counterfactual", "−gradient"} {
		if !strings.Contains(strings.Join(labels, "|"), want) {
			t.Errorf("legend %v lacks %q", labels, want)
		}
	}
}

// Arrows are proportional to |v| up to the clip value, a round number not above the median |v|, and
// full beyond it; on the page they point along v as plotted (axes of different scales included) and
// have the same length for the same |v| whatever the direction; direction-only arrows all have the same
// length.
func TestArrowScaling(t *testing.T) {
	var pts, vecs []float32
	for i := range 10 {
		pts = append(pts, float32(i)*0.5, float32(i%2)*0.25)
		vecs = append(vecs, float32(i+1)*0.3, -float32(i+1)*0.1*float32(1-2*(i%3))) // |v| = (i+1)·0.316
	}
	l, err := NewArrowLayer(VectorField{Points: pts, Vectors: vecs})
	if err != nil {
		t.Fatal(err)
	}
	if l.GapX != 0.5 || l.GapY != 0.25 {
		t.Errorf("grid gaps %v, %v; want 0.5, 0.25", l.GapX, l.GapY)
	}
	// The median (index 4 of 10) is 5·0.316 = 1.58: the clip is 1.
	if l.Clip != 1 || l.KeyText != "|v| ≥ 1" {
		t.Errorf("clip %v (%q), want 1", l.Clip, l.KeyText)
	}
	for i := range 10 {
		if want := math.Min(math.Hypot(float64(vecs[2*i]), float64(vecs[2*i+1]))/l.Clip, 1); math.Abs(l.Lengths[i]-want) > 1e-6 {
			t.Errorf("arrow %d has length %v of the full one, want %v", i, l.Lengths[i], want)
		}
	}
	// On the page the axes have different scales (4.5 by 0.25 data units on about 400 × 200 points):
	// directions and lengths are checked against the plot's own transforms.
	p := newPlot("", "", "")
	p.Add(l)
	c := draw.Canvas{Canvas: vgimg.New(400, 200), Rectangle: vg.Rectangle{Max: vg.Point{X: 400, Y: 200}}}
	dc := p.DataCanvas(c)
	from, to := l.Segments(dc, p)
	trX, trY := p.Transforms(&dc)
	sx, sy := float64(trX(1)-trX(0)), float64(trY(1)-trY(0))
	full := float64(l.fullLength(dc, trX, trY))
	if want := 0.9 * math.Min(0.5*sx, 0.25*sy); math.Abs(full-want) > 1e-9 {
		t.Errorf("full arrow %v points, want %v", full, want)
	}
	for i := range 10 {
		dx, dy := float64(to[i].X-from[i].X), float64(to[i].Y-from[i].Y)
		vx, vy := float64(vecs[2*i])*sx, float64(vecs[2*i+1])*sy
		if cross, dot := dx*vy-dy*vx, dx*vx+dy*vy; math.Abs(cross) > 1e-6*math.Hypot(vx, vy)*math.Hypot(dx, dy) || dot <= 0 {
			t.Errorf("arrow %d points along (%v, %v) on the page, v along (%v, %v)", i, dx, dy, vx, vy)
		}
		if got := math.Hypot(dx, dy); math.Abs(got-l.Lengths[i]*full) > 1e-6 {
			t.Errorf("arrow %d is %v points long, want %v", i, got, l.Lengths[i]*full)
		}
	}
	all, err := NewArrowLayer(VectorField{Points: pts, Vectors: vecs, ClipQuantile: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Clip != 2 { // the largest |v| is 3.16
		t.Errorf("clip at the largest |v|: %v, want 2", all.Clip)
	}
	if _, err := NewArrowLayer(VectorField{Points: pts, Vectors: vecs, ClipQuantile: 1.5}); err == nil {
		t.Error("a clip quantile above 1 was accepted")
	}
	d, err := NewArrowLayer(VectorField{Points: pts, Vectors: vecs, Scaling: DirectionOnly})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if math.Abs(d.Lengths[i]*0.9-0.8) > 1e-12 {
			t.Errorf("direction-only arrow %d has length %v of the full one", i, d.Lengths[i])
		}
	}
	if _, err := NewArrowLayer(VectorField{Points: pts, Vectors: vecs[:4]}); err == nil {
		t.Error("a field with too few vectors was accepted")
	}
	for _, c := range []struct{ q, want float64 }{{0.73, 0.5}, {1, 1}, {19, 10}, {0.025, 0.02}} {
		if got := niceBelow(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceBelow(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func testSurface(n int, f func(x, y float64) float64) Surface {
	s := Surface{}
	for i := range n {
		s.X = append(s.X, -1+2*float64(i)/float64(n-1))
		s.Y = append(s.Y, -2+3*float64(i)/float64(n-1))
	}
	s.Z = make([][]float64, n)
	for iy := range n {
		s.Z[iy] = make([]float64, n)
		for ix := range n {
			s.Z[iy][ix] = f(s.X[ix], s.Y[iy])
		}
	}
	return s
}

func TestCPDiffHasThreeHeatMapsWithColourBars(t *testing.T) {
	set := testSurface(8, func(x, y float64) float64 { return math.Round(1 + math.Abs(x)) })
	set.Levels = []float64{1.5}
	sm := testSurface(8, func(x, y float64) float64 { return x*x + y })
	loss := testSurface(8, func(x, y float64) float64 { return 3 })
	f, err := CPDiff(&Labelled{X: []float32{0, 0, 0.5, -1}, Y: []int{0, 1}}, set, sm, loss, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != 1 || f.Cols != 3 {
		t.Fatalf("cp-diff is %d × %d", f.Rows, f.Cols)
	}
	for i, p := range f.Panels {
		if p.ColorBar == nil {
			t.Errorf("panel %d has no colour bar", i)
		}
		s, ok := p.Layers[0].(*SurfaceLayer)
		if !ok {
			t.Fatalf("panel %d: first layer %T, want the heat map", i, p.Layers[0])
		}
		if (i == 0) != (s.Contour != nil) {
			t.Errorf("panel %d: contour lines %v", i, s.Contour != nil)
		}
		if i == 1 && s.Surface.Z[3][5] != sm.Z[3][5] {
			t.Errorf("the smooth set size panel shows another surface")
		}
	}
	if _, err := f.PNG(); err != nil { // a constant surface (loss) still renders
		t.Fatal(err)
	}
	bad := sm
	bad.Z = bad.Z[:3]
	if _, err := CPDiff(nil, set, bad, loss, nil); err == nil {
		t.Error("a surface with missing rows was accepted")
	}
}

func TestMetricChartRows(t *testing.T) {
	f, err := MetricChart("Unfaithfulness ↓", []MetricSeries{
		{Name: "MLP", Values: []MetricValue{{"Wachter", 0.25, 0.01}, {"ECCCo", 0.20, 0.02}}},
		{Name: "JEM", Values: []MetricValue{{"ECCCo", 0.22, 0}}},
	}, []string{"ECCCo", "Wachter"})
	if err != nil {
		t.Fatal(err)
	}
	mlp := f.Panels[0].Layers[0].(*MetricLayer)
	jem := f.Panels[0].Layers[1].(*MetricLayer)
	// ECCCo is the top row (y = 1), Wachter below (y = 0); MLP dodged above JEM.
	if mlp.XYs[0].X != 0.25 || math.Round(mlp.XYs[0].Y) != 0 || mlp.XYs[1].X != 0.20 || math.Round(mlp.XYs[1].Y) != 1 {
		t.Errorf("MLP points %v", mlp.XYs)
	}
	if !(jem.XYs[0].Y < mlp.XYs[1].Y) || mlp.SDs[1] != 0.02 {
		t.Errorf("JEM %v not dodged below MLP %v", jem.XYs, mlp.XYs)
	}
	if len(f.Legend) != 2 || f.Legend[1].Label != "JEM" {
		t.Errorf("legend %v", f.Legend)
	}
	if _, err := MetricChart("m", []MetricSeries{{Values: []MetricValue{{"X", 1, 0}}}}, []string{"Y"}); err == nil {
		t.Error("a generator outside the list was accepted")
	}
	if _, err := MetricChart("m", []MetricSeries{{Values: []MetricValue{{"X", math.NaN(), 0}}}}, nil); err == nil {
		t.Error("a NaN mean was accepted")
	}
}

// A figure writes a decodable PNG of its size at its DPI, a well-formed SVG and a PDF, leaving no
// temporary files; the bytes are the same on every call.
func TestFigureWritesValidFiles(t *testing.T) {
	f, _ := testPOC(t)
	f.DPI = 100
	dir := t.TempDir()
	for _, ext := range []string{"png", "svg", "pdf"} {
		if err := f.Write(filepath.Join(dir, "sub", "poc."+ext)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Write(filepath.Join(dir, "poc.gif")); err == nil {
		t.Error("an unknown extension was accepted")
	}
	b, err := os.ReadFile(filepath.Join(dir, "sub", "poc.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(f.Width.Dots(100)+0.5), int(f.Height.Dots(100)+0.5)
	if img.Bounds() != image.Rect(0, 0, wantW, wantH) {
		t.Errorf("PNG is %v, want %d×%d", img.Bounds(), wantW, wantH)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "sub", "poc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if root, err := wellFormedXML(svg); err != nil || root != "svg" {
		t.Errorf("SVG: root %q, %v", root, err)
	}
	pdf, err := os.ReadFile(filepath.Join(dir, "sub", "poc.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf[max(0, len(pdf)-64):], []byte("%%EOF")) {
		t.Errorf("PDF does not look like one: %q … %q", pdf[:8], pdf[max(0, len(pdf)-16):])
	}
	entries, err := os.ReadDir(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("directory holds %d entries, want the 3 figures", len(entries))
	}
	for _, render := range []func() ([]byte, error){f.PNG, f.SVG, f.PDF} {
		a, err1 := render()
		b, err2 := render()
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("two renderings differ (%v, %v)", err1, err2)
		}
	}
}

func wellFormedXML(b []byte) (root string, err error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return root, nil
		}
		if err != nil {
			return root, err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}

// A failed write leaves the previous file as it was and no temporary file behind: an invalid figure
// fails before writing, and a rename onto a directory fails after.
func TestFigureWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := Figure{Width: vg.Inch, Height: vg.Inch, Rows: 1, Cols: 2, Panels: []*Panel{nil}}
	if err := bad.WritePNG(path); err == nil {
		t.Error("a figure with too few panels was written")
	}
	f, _ := testPOC(t)
	f.DPI = 50
	if err := os.Mkdir(filepath.Join(dir, "taken.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "taken.png", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.WritePNG(filepath.Join(dir, "taken.png")); err == nil {
		t.Error("writing over a non-empty directory succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the previous file now holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want fig.png and taken.png only", names)
	}
}

func TestClassColoursAreConsistent(t *testing.T) {
	if ClassColor(0) != Blue || ClassColor(1) != Orange || ClassColor(10) != ClassColor(0) {
		t.Error("class colours: 0 must be blue, 1 orange, cycling after 10")
	}
	l, err := NewDataLayer(Labelled{X: []float32{0, 0, 1, 1, 2, 2}, Y: []int{1, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.ByClass[1]) != 2 || len(l.ByClass[0]) != 1 || dataGlyph(1).Color != Orange {
		t.Errorf("data grouped as %v", l.ByClass)
	}
	if _, err := NewDataLayer(Labelled{X: []float32{0, 0}, Y: []int{0, 1}}); err == nil {
		t.Error("more labels than rows were accepted")
	}
	v := NewViridis(0, 2)
	lo, _ := v.At(-5)
	hi, _ := v.At(7)
	if lo != viridisAnchors[0] || hi != viridisAnchors[len(viridisAnchors)-1] {
		t.Errorf("viridis clamps to %v, %v", lo, hi)
	}
}

// A figure with an empty tile renders, and the bytes of WritePNG are those of PNG.
func TestEmptyTileAndWrittenBytes(t *testing.T) {
	p, err := Plane{Title: "only", Data: &Labelled{X: []float32{0, 0, 1, 1}, Y: []int{0, 1}}}.Panel()
	if err != nil {
		t.Fatal(err)
	}
	f := Figure{Width: 4 * vg.Inch, Height: 2 * vg.Inch, DPI: 72, Rows: 1, Cols: 2, Panels: []*Panel{p, nil}}
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := f.WritePNG(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
		t.Error("the written file differs from PNG()")
	}
	// The data's 4 % margin keeps markers inside the axes.
	if p.Plot.X.Min >= 0 || p.Plot.X.Max <= 1 {
		t.Errorf("x axis %v … %v has no margin around the data 0 … 1", p.Plot.X.Min, p.Plot.X.Max)
	}
}

// At print size, the legends of the synthetic figures fit on one line and no text is below 7 pt.
func TestLegendsOnOneLineReadable(t *testing.T) {
	for _, size := range []vg.Length{TitleSize, LabelSize, TickSize, LegendSize} {
		if size < 7 {
			t.Errorf("a font of %v pt", size)
		}
	}
	d := Labelled{X: []float32{0, 0, 1, 1}, Y: []int{0, 1}}
	var panels []GeneratorPanel
	for _, g := range []string{"Wachter", "ECCCo (no EBM)", "ECCCo (no CP)", "ECCCo"} {
		panels = append(panels, GeneratorPanel{Generator: g, Field: &VectorField{Points: []float32{0, 0, 1, 1}, Vectors: []float32{1, 0, 0, 1}},
			Path: Path{Steps: []float32{1, 1, 0.5, 0.5, 0, 0}, From: 1, To: 0}, Samples: []float32{0, 0.1}})
	}
	poc, err := POC(d, panels, []string{"0", "1"})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := POCGen(d, [][]float32{{0, 0.1}, {1, 0.9}}, []string{"0", "1"})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]Figure{"poc": poc, "poc-gen": gen} {
		if n := len(legendLines(f.Legend, f.Width)); n != 1 {
			t.Errorf("%s: the legend takes %d lines", name, n)
		}
	}
}

// A constant surface with a note shows the note on top of its panel.
func TestSurfaceNote(t *testing.T) {
	s := Surface{X: []float64{0, 1}, Y: []float64{0, 1}, Z: [][]float64{{0, 0}, {0, 0}}, Note: "Ω = 0 everywhere"}
	p, err := Plane{Surface: &s}.Panel()
	if err != nil {
		t.Fatal(err)
	}
	last, ok := p.Layers[len(p.Layers)-1].(NoteLayer)
	if !ok || last.Text != s.Note {
		t.Errorf("the last layer is %T, want the note", p.Layers[len(p.Layers)-1])
	}
}
