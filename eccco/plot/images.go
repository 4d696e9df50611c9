package plot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ImageGrid is a labelled grid of grey images (MNIST digits): a raster of the cells, pixel for pixel,
// with row titles on the left, column titles on top and optional headers for both. Its Figure is laid
// out in whole PNG pixels at DPI, so each image pixel becomes exactly Scale × Scale pixels of the PNG.
type ImageGrid struct {
	// Height and Width are the pixels of every image.
	Height, Width int
	// Cells[r][c] is the image in row r, column c: Height·Width values, row-major, in [−1, 1] (the scale
	// of the paper's image data; −1 black, +1 white, clipped outside), or nil for an empty cell.
	Cells [][][]float32
	// RowTitles and ColTitles label rows and columns (nil or one per row/column; may hold "\n").
	RowTitles, ColTitles []string
	// RowHeader is drawn vertically left of the row titles, ColHeader above the column titles.
	RowHeader, ColHeader string
	// RowGroup, when positive, widens the gutter after every RowGroup rows (to 4 gaps), e.g. 2 for pairs of
	// originals and reconstructions.
	RowGroup int
	// Framed cells get a frame in the class-1 orange, drawn in their gutter (the originals on the
	// diagonal of CounterfactualMatrix), as [row, column] pairs.
	Framed [][2]int
	// Scale is the PNG pixels per image pixel (0: fitted to FitWidth).
	Scale int
	// Gap is the white gutter between cells in PNG pixels (0: Scale; negative: none).
	Gap int
	// DPI is the resolution the layout is made for (0: DefaultDPI).
	DPI int
	// FitWidth is the printed width Scale is fitted to when Scale is 0 (0: ColumnWidth).
	FitWidth vg.Length
}

func (g *ImageGrid) rows() int { return len(g.Cells) }

func (g *ImageGrid) cols() int {
	n := 0
	for _, r := range g.Cells {
		n = max(n, len(r))
	}
	return n
}

func (g *ImageGrid) dpi() int {
	if g.DPI > 0 {
		return g.DPI
	}
	return DefaultDPI
}

func (g *ImageGrid) check() error {
	if g.Height <= 0 || g.Width <= 0 {
		return fmt.Errorf("image grid: image size %d×%d", g.Height, g.Width)
	}
	if g.rows() == 0 || g.cols() == 0 {
		return fmt.Errorf("image grid: no cells")
	}
	for r, row := range g.Cells {
		for c, img := range row {
			if img != nil && len(img) != g.Height*g.Width {
				return fmt.Errorf("image grid: cell (%d, %d) has %d pixels, want %d×%d", r, c, len(img), g.Height, g.Width)
			}
		}
	}
	if g.RowTitles != nil && len(g.RowTitles) != g.rows() {
		return fmt.Errorf("image grid: %d row titles for %d rows", len(g.RowTitles), g.rows())
	}
	if g.ColTitles != nil && len(g.ColTitles) != g.cols() {
		return fmt.Errorf("image grid: %d column titles for %d columns", len(g.ColTitles), g.cols())
	}
	return nil
}

// layout is the grid's geometry in PNG pixels (dots at DPI), origin top-left.
type layout struct {
	scale, gap             int
	left, top              int // the raster's top-left corner
	rasterW, rasterH       int
	width, height          int // the whole figure
	rowHeaderW, colHeaderH int
	colTitleH              int
}

var gridPad = 0.03 * vg.Inch

func dots(l vg.Length, dpi int) int { return int(math.Ceil(float64(l.Dots(float64(dpi))) - 1e-9)) }

func (g *ImageGrid) titleStyle() text.Style { return textStyle(LabelSize) }

func (g *ImageGrid) layout() layout {
	dpi := g.dpi()
	sty := g.titleStyle()
	pad := dots(gridPad, dpi)
	var l layout
	if g.RowHeader != "" {
		l.rowHeaderW = dots(sty.Height(g.RowHeader), dpi) + pad
	}
	rowTitleW := 0
	for _, t := range g.RowTitles {
		rowTitleW = max(rowTitleW, dots(sty.Width(t), dpi))
	}
	if rowTitleW > 0 {
		rowTitleW += pad
	}
	if g.ColHeader != "" {
		l.colHeaderH = dots(sty.Height(g.ColHeader), dpi) + pad
	}
	for _, t := range g.ColTitles {
		l.colTitleH = max(l.colTitleH, dots(sty.Height(t), dpi))
	}
	if l.colTitleH > 0 {
		l.colTitleH += pad
	}
	l.left = pad + l.rowHeaderW + rowTitleW
	l.top = pad + l.colHeaderH + l.colTitleH
	rows, cols := g.rows(), g.cols()
	l.scale, l.gap = g.Scale, g.Gap
	if l.scale <= 0 {
		fit := g.FitWidth
		if fit <= 0 {
			fit = ColumnWidth
		}
		avail := dots(fit, dpi) - l.left - pad
		// cols·W·s + (cols−1)·gap ≤ avail with gap = s by default.
		l.scale = max(1, avail/(cols*g.Width+max(cols-1, 0)))
		if l.gap > 0 {
			l.scale = max(1, (avail-(cols-1)*l.gap)/(cols*g.Width))
		}
	}
	if l.gap == 0 {
		l.gap = l.scale
	}
	l.gap = max(l.gap, 0)
	l.rasterW = cols*g.Width*l.scale + (cols-1)*l.gap
	l.rasterH = l.cellOrigin(g, rows-1, 0).Y + g.Height*l.scale
	l.width = l.left + l.rasterW + pad
	l.height = l.top + l.rasterH + pad
	return l
}

// cellOrigin is the top-left of cell (r, c) inside the raster.
func (l layout) cellOrigin(g *ImageGrid, r, c int) image.Point {
	y := r * (g.Height*l.scale + l.gap)
	if g.RowGroup > 0 {
		y += (r / g.RowGroup) * 3 * l.gap
	}
	return image.Point{X: c * (g.Width*l.scale + l.gap), Y: y}
}

// Raster returns the cells as one grey image (the part of the figure inside the titles): each image pixel
// Scale × Scale, white gutters, empty cells white.
func (g *ImageGrid) Raster() (*image.Gray, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	l := g.layout()
	img := image.NewGray(image.Rect(0, 0, l.rasterW, l.rasterH))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for r, row := range g.Cells {
		for c, px := range row {
			if px == nil {
				continue
			}
			o := l.cellOrigin(g, r, c)
			for y := range g.Height * l.scale {
				for x := range g.Width * l.scale {
					img.SetGray(o.X+x, o.Y+y, color.Gray{Y: Grey(px[(y/l.scale)*g.Width+x/l.scale])})
				}
			}
		}
	}
	return img, nil
}

// CellBounds returns where cell (r, c) lies in the PNG of the grid's Figure (at the grid's DPI).
func (g *ImageGrid) CellBounds(r, c int) image.Rectangle {
	l := g.layout()
	o := l.cellOrigin(g, r, c).Add(image.Point{X: l.left, Y: l.top})
	return image.Rectangle{Min: o, Max: o.Add(image.Point{X: g.Width * l.scale, Y: g.Height * l.scale})}
}

// Grey maps a pixel value in [−1, 1] to an 8-bit grey level (−1 black, +1 white, clipped outside).
func Grey(v float32) uint8 {
	g := (float64(v) + 1) / 2 * 255
	if math.IsNaN(g) {
		return 0
	}
	return uint8(min(max(g+0.5, 0), 255))
}

// Figure returns the grid as a figure (its size set from the layout).
func (g *ImageGrid) Figure() (Figure, error) {
	if err := g.check(); err != nil {
		return Figure{}, err
	}
	w, h := g.size()
	return Figure{Width: w, Height: h, DPI: g.dpi(), Grid: g}, nil
}

func (g *ImageGrid) size() (w, h vg.Length) {
	l := g.layout()
	return g.len(l.width), g.len(l.height)
}

// len converts PNG pixels to a printed length.
func (g *ImageGrid) len(d int) vg.Length { return vg.Length(d) * vg.Inch / vg.Length(g.dpi()) }

// draw draws the raster and the titles onto c.
func (g *ImageGrid) draw(c draw.Canvas) {
	raster, err := g.Raster()
	if err != nil {
		panic(err)
	}
	l := g.layout()
	fillWhite(c)
	// y in PNG pixels from the top → canvas y from the bottom.
	x := func(d int) vg.Length { return c.Min.X + g.len(d) }
	y := func(d int) vg.Length { return c.Max.Y - g.len(d) }
	c.DrawImage(vg.Rectangle{Min: vg.Point{X: x(l.left), Y: y(l.top + l.rasterH)}, Max: vg.Point{X: x(l.left + l.rasterW), Y: y(l.top)}}, raster)
	if l.gap > 0 {
		frame := draw.LineStyle{Color: Orange, Width: g.len(l.gap)}
		for _, rc := range g.Framed {
			o := l.cellOrigin(g, rc[0], rc[1]).Add(image.Point{X: l.left, Y: l.top})
			x0, y0 := x(o.X)-g.len(l.gap)/2, y(o.Y)+g.len(l.gap)/2
			x1, y1 := x(o.X+g.Width*l.scale)+g.len(l.gap)/2, y(o.Y+g.Height*l.scale)-g.len(l.gap)/2
			c.StrokeLines(frame, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0 + g.len(l.gap)/2}})
		}
	}
	sty := g.titleStyle()
	pad := dots(gridPad, g.dpi())
	for ci, t := range g.ColTitles {
		o := l.cellOrigin(g, 0, ci)
		s := sty
		s.XAlign, s.YAlign = draw.XCenter, draw.YBottom
		c.FillText(s, vg.Point{X: x(l.left + o.X + g.Width*l.scale/2), Y: y(l.top - pad/2)}, t)
	}
	for ri, t := range g.RowTitles {
		o := l.cellOrigin(g, ri, 0)
		s := sty
		s.XAlign, s.YAlign = draw.XRight, draw.YCenter
		c.FillText(s, vg.Point{X: x(l.left - pad/2), Y: y(l.top + o.Y + g.Height*l.scale/2)}, t)
	}
	if g.ColHeader != "" {
		s := sty
		s.XAlign, s.YAlign = draw.XCenter, draw.YBottom
		c.FillText(s, vg.Point{X: x(l.left + l.rasterW/2), Y: y(l.top - l.colTitleH - pad/2)}, g.ColHeader)
	}
	if g.RowHeader != "" {
		s := sty
		s.Rotation = math.Pi / 2
		s.XAlign, s.YAlign = draw.XCenter, draw.YTop
		c.FillText(s, vg.Point{X: x(pad), Y: y(l.top + l.rasterH/2)}, g.RowHeader)
	}
}

func fillWhite(c draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.White, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// ImageRow is one row of images with a title above each: Fig. 1 (factual | Wachter | Schut | REVISE,
// titles holding the generator and the predicted probability of the target) and Fig. 3 (a 3 turned
// into a 5 by five generators).
func ImageRow(images [][]float32, titles []string, height, width int) (*ImageGrid, error) {
	if titles != nil && len(titles) != len(images) {
		return nil, fmt.Errorf("image row: %d titles for %d images", len(titles), len(images))
	}
	g := &ImageGrid{Height: height, Width: width, Cells: [][][]float32{images}, ColTitles: titles, FitWidth: ColumnWidth}
	return g, g.check()
}

// CounterfactualMatrix is the appendix's 10 × 10 MNIST grid: row i holds the counterfactuals of
// originals[i] into every class, counterfactuals[i][j] in column j, with the original itself on the
// diagonal (counterfactuals[i][i] is ignored and may be nil). classNames label the columns (and, with
// originals of class i in row i, the rows). len(originals) rows, len(classNames) columns.
func CounterfactualMatrix(originals [][]float32, counterfactuals [][][]float32, classNames []string, height, width int) (*ImageGrid, error) {
	n, k := len(originals), len(classNames)
	if n == 0 || k == 0 {
		return nil, fmt.Errorf("counterfactual matrix: %d originals, %d classes", n, k)
	}
	if len(counterfactuals) != n {
		return nil, fmt.Errorf("counterfactual matrix: %d rows of counterfactuals for %d originals", len(counterfactuals), n)
	}
	g := &ImageGrid{Height: height, Width: width, Cells: make([][][]float32, n), ColTitles: classNames,
		RowHeader: "factual", ColHeader: "counterfactual target class"}
	for i := range n {
		if len(counterfactuals[i]) != k {
			return nil, fmt.Errorf("counterfactual matrix: row %d has %d counterfactuals for %d classes", i, len(counterfactuals[i]), k)
		}
		g.Cells[i] = make([][]float32, k)
		for j := range k {
			if i == j {
				g.Framed = append(g.Framed, [2]int{i, i})
				g.Cells[i][j] = originals[i]
			} else {
				g.Cells[i][j] = counterfactuals[i][j]
			}
		}
	}
	if n == k {
		g.RowTitles = classNames
	}
	return g, g.check()
}

// Reconstructions is fig:vae-rec: originals above their reconstructions, cols images per row pair.
func Reconstructions(originals, reconstructions [][]float32, cols, height, width int) (*ImageGrid, error) {
	if len(originals) == 0 || len(originals) != len(reconstructions) {
		return nil, fmt.Errorf("reconstructions: %d originals, %d reconstructions", len(originals), len(reconstructions))
	}
	if cols <= 0 {
		cols = len(originals)
	}
	g := &ImageGrid{Height: height, Width: width, FitWidth: ColumnWidth, RowGroup: 2}
	for start := 0; start < len(originals); start += cols {
		end := min(start+cols, len(originals))
		g.Cells = append(g.Cells, originals[start:end], reconstructions[start:end])
		g.RowTitles = append(g.RowTitles, "original", "VAE")
	}
	return g, g.check()
}

// SampleGrid is fig:mnist-gen: row k holds the conditional samples of class k (samples[k], each image
// Height·Width values), titled by classNames (nil: the class number).
func SampleGrid(samples [][][]float32, classNames []string, height, width int) (*ImageGrid, error) {
	g := &ImageGrid{Height: height, Width: width, Cells: samples, RowHeader: "class", FitWidth: ColumnWidth}
	for k := range samples {
		// The header says "class": a row is titled by the class's name, or its number where it has none.
		t := className(classNames, k)
		if t == "class "+strconv.Itoa(k) {
			t = strconv.Itoa(k)
		}
		g.RowTitles = append(g.RowTitles, t)
	}
	return g, g.check()
}
