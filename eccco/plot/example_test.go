package plot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/plot"
)

// Fig. 2: one panel per generator with the gradient field of its objective, the search path and the
// samples of the target class, over the data. Package figures fills the slices from an experiment.
func ExamplePOC() {
	data := plot.Labelled{
		X: []float32{-1, -1, -1.2, -0.8, 1, 1, 1.1, 0.9}, // two points per class
		Y: []int{0, 0, 1, 1},
	}
	// The field: −gradient at a 5 × 5 grid (here pulling towards (−1, −1)).
	var points, vectors []float32
	for i := range 5 {
		for j := range 5 {
			x, y := -2+float32(i), -2+float32(j)
			points = append(points, x, y)
			vectors = append(vectors, -1-x, -1-y)
		}
	}
	var panels []plot.GeneratorPanel
	for _, name := range []string{"Wachter", "ECCCo (no EBM)", "ECCCo (no CP)", "ECCCo"} {
		panels = append(panels, plot.GeneratorPanel{
			Generator: name,
			Field:     &plot.VectorField{Points: points, Vectors: vectors},
			Path:      plot.Path{Steps: []float32{1, 1, 0, 0, -0.9, -1}, From: 1, To: 0},
			Samples:   []float32{-1, -1.1, -0.9, -1},
		})
	}
	f, err := plot.POC(data, panels, []string{"blue", "orange"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d × %d panels, %.2f in wide\n", f.Rows, f.Cols, f.Width.Points()/72)
	for _, e := range f.Legend {
		fmt.Println(e.Label)
	}
	// Output:
	// 2 × 2 panels, 5.25 in wide
	// blue
	// orange
	// SGLD samples
	// factual, path
	// counterfactual
	// −gradient
}

// The appendix's 10 × 10 MNIST grids: originals on the diagonal, the counterfactual of original i into
// class j in column j of row i. Here 2 × 2 images of 3 classes.
func ExampleCounterfactualMatrix() {
	img := func(v float32) []float32 { return []float32{v, v, v, v} }
	originals := [][]float32{img(1), img(1), img(1)} // white
	cfs := [][][]float32{
		{nil, img(-1), img(-1)}, // black counterfactuals; the diagonal entries are ignored
		{img(-1), nil, img(-1)},
		{img(-1), img(-1), nil},
	}
	g, err := plot.CounterfactualMatrix(originals, cfs, []string{"0", "1", "2"}, 2, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	g.Scale = 10 // 10 × 10 PNG pixels per image pixel
	f, err := g.Figure()
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := f.PNG()
	if err != nil {
		fmt.Println(err)
		return
	}
	pic, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		var row []uint32
		for j := range 3 {
			c := g.CellBounds(i, j)
			r, _, _, _ := pic.At((c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2).RGBA()
			row = append(row, r>>8)
		}
		fmt.Println(row)
	}
	// Output:
	// [255 0 0]
	// [0 255 0]
	// [0 0 255]
}

// fig:cp-diff: three surfaces over the plane, Z[iy][ix] the value at (X[ix], Y[iy]).
func ExampleCPDiff() {
	n := 20
	surface := func(f func(x, y float64) float64) plot.Surface {
		s := plot.Surface{}
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
	setSize.Levels = []float64{1.5} // a contour line between sets of 1 and 2 classes
	smooth := surface(func(x, y float64) float64 { return 2 / (1 + math.Exp(4*math.Abs(x+y)-2)) })
	loss := surface(func(x, y float64) float64 { return math.Log1p(math.Exp(-(x + y))) })
	f, err := plot.CPDiff(nil, setSize, smooth, loss, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range f.Panels {
		fmt.Println(p.Plot.Title.Text, p.ColorBar != nil)
	}
	// Output:
	// Prediction set size true
	// Smooth set size true
	// Classification loss true
}

// The benchmark's headline: a metric's mean ± sd per generator, one series per model.
func ExampleMetricChart() {
	f, err := plot.MetricChart("Unfaithfulness ↓", []plot.MetricSeries{
		{Name: "MLP", Values: []plot.MetricValue{{Generator: "ECCCo", Mean: 0.243, SD: 0.001}, {Generator: "Wachter", Mean: 0.247, SD: 0.001}}},
		{Name: "JEM", Values: []plot.MetricValue{{Generator: "ECCCo", Mean: 0.248, SD: 0.002}, {Generator: "Wachter", Mean: 0.251, SD: 0.001}}},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, err := f.SVG()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.HasPrefix(svg, []byte("<?xml")), len(f.Legend))
	// Output: true 2
}

// Class colours are the same in every figure: the paper's blue and orange first.
func ExampleClassColor() {
	fmt.Println(plot.ClassColor(0) == plot.Blue, plot.ClassColor(1) == plot.Orange)
	// Output: true true
}

// A plane of one's own: the data, a path and samples, drawn in that order, with the shared legend. Each
// panel records its layers, so that what is drawn can be checked.
func ExamplePlaneFigure() {
	data := plot.Labelled{X: []float32{-1, -1, -1.2, -0.8, 1, 1, 1.1, 0.9}, Y: []int{0, 0, 1, 1}}
	pl := plot.Plane{
		Title:   "a search",
		Data:    &data,
		Samples: []plot.Samples{{X: []float32{-1, -1.1}, Class: 0}},
		Paths:   []plot.Path{{Steps: []float32{1, 1, 0, 0.2, -0.9, -1}, From: 1, To: 0}},
	}
	f, err := plot.PlaneFigure([]plot.Plane{pl}, 1, plot.ColumnWidth, []string{"blue", "orange"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range f.Panels[0].Layers {
		fmt.Printf("%T\n", l)
	}
	// Output:
	// *plot.DataLayer
	// *plot.SampleLayer
	// *plot.PathLayer
}

// A row of images with titles (the paper's Fig. 1 and Fig. 3), written as PNG, SVG and PDF. Files are
// written atomically, into a directory created if missing.
func ExampleImageRow() {
	img := func(v float32) []float32 { return []float32{v, -v, -v, v} }
	g, err := plot.ImageRow([][]float32{img(1), img(-1)}, []string{"factual\n9", "Wachter\np=0.98"}, 2, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := g.Figure()
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "plot-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"row.png", "row.svg", "row.pdf"} {
		if err := f.Write(filepath.Join(dir, "figures", name)); err != nil {
			fmt.Println(err)
			return
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "figures"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// row.pdf
	// row.png
	// row.svg
}
