package plot

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure of the paper, ready to be written as PNG, SVG or PDF or embedded in a notebook:
// either panels (gonum/plot plots) in a grid of Rows × Cols tiles with an optional shared legend below
// them, or an image grid (Grid). It is a plain value: build one with the package's functions (or by hand)
// and adjust its fields before writing.
type Figure struct {
	// Width and Height are the printed size.
	Width, Height vg.Length
	// DPI is the resolution of PNG output (0: DefaultDPI).
	DPI int
	// Rows and Cols arrange Panels (row-major, Rows·Cols entries; a nil entry leaves its tile empty).
	Rows, Cols int
	Panels     []*Panel
	// Legend entries are drawn in a strip under the panels, left to right, wrapping as needed.
	Legend []LegendEntry
	// Grid, when set, is drawn instead of the panels (image grids; Width and Height come from it).
	Grid *ImageGrid
	// EmbedFonts embeds the font in SVG output (about 0.5 MB more). Without it the SVG names Liberation
	// Sans with Arial, Helvetica and sans-serif as fallbacks (Arial has the same metrics).
	EmbedFonts bool
}

// Panel is one tile of a figure: a plot, and optionally a colour bar drawn to its right.
type Panel struct {
	Plot *plot.Plot
	// ColorBar is a narrow plot holding a plotter.ColorBar, drawn to the right of Plot.
	ColorBar *plot.Plot
	// Layers are the plotters added to Plot through Add, in drawing order: what the panel shows, for
	// inspection (gonum/plot keeps its own list private).
	Layers []plot.Plotter
}

// Add adds plotters to the panel's plot and records them in Layers.
func (p *Panel) Add(ps ...plot.Plotter) {
	p.Plot.Add(ps...)
	p.Layers = append(p.Layers, ps...)
}

// LegendEntry is one entry of a figure's shared legend: a label and the thumbnails drawn before it, side
// by side.
type LegendEntry struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

// colorBarWidth is the width of a panel's colour bar tile (bar, ticks, tick labels and label).
const colorBarWidth = 0.62 * vg.Inch

func (f Figure) dpi() int {
	if f.DPI > 0 {
		return f.DPI
	}
	return DefaultDPI
}

func (f Figure) check() error {
	if f.Grid != nil {
		return nil
	}
	switch {
	case !(f.Width > 0) || !(f.Height > 0):
		return fmt.Errorf("figure: size %v × %v, must be positive", f.Width, f.Height)
	case f.Rows <= 0 || f.Cols <= 0:
		return fmt.Errorf("figure: %d × %d tiles, need at least one", f.Rows, f.Cols)
	case len(f.Panels) != f.Rows*f.Cols:
		return fmt.Errorf("figure: %d panels for %d × %d tiles", len(f.Panels), f.Rows, f.Cols)
	}
	for i, p := range f.Panels {
		if p != nil && p.Plot == nil {
			return fmt.Errorf("figure: panel %d has no plot", i)
		}
	}
	return nil
}

// size returns the printed size (an image grid's own when Grid is set).
func (f Figure) size() (w, h vg.Length) {
	if f.Grid != nil {
		return f.Grid.size()
	}
	return f.Width, f.Height
}

// Draw draws the figure onto c (any gonum/plot canvas).
func (f Figure) Draw(c draw.Canvas) {
	if f.Grid != nil {
		f.Grid.draw(c)
		return
	}
	fillWhite(c)
	if len(f.Legend) > 0 {
		h := legendHeight(f.Legend, c.Max.X-c.Min.X)
		drawLegend(draw.Crop(c, 0, 0, 0, -(c.Max.Y-c.Min.Y-h)), f.Legend)
		c = draw.Crop(c, 0, 0, h, 0)
	}
	tiles := draw.Tiles{Rows: f.Rows, Cols: f.Cols, PadX: 0.12 * vg.Inch, PadY: 0.08 * vg.Inch,
		PadTop: 0.03 * vg.Inch, PadBottom: 0.02 * vg.Inch, PadLeft: 0.02 * vg.Inch, PadRight: 0.04 * vg.Inch}
	grid := make([][]*plot.Plot, f.Rows)
	for r := range f.Rows {
		grid[r] = make([]*plot.Plot, f.Cols)
		for col := range f.Cols {
			if p := f.Panels[r*f.Cols+col]; p != nil {
				grid[r][col] = p.Plot
			}
		}
	}
	canvases := plot.Align(grid, tiles, c)
	for r := range f.Rows {
		for col := range f.Cols {
			p := f.Panels[r*f.Cols+col]
			if p == nil {
				continue
			}
			tc := canvases[r][col]
			if p.ColorBar != nil {
				bar := draw.Crop(tc, tc.Max.X-tc.Min.X-colorBarWidth, 0, 0, 0)
				tc = draw.Crop(tc, 0, -colorBarWidth, 0, 0)
				// The bar spans the main plot's data area vertically.
				dc := p.Plot.DataCanvas(tc)
				bar = draw.Crop(bar, 0.08*vg.Inch, 0, dc.Min.Y-bar.Min.Y, dc.Max.Y-bar.Max.Y)
				p.ColorBar.Draw(bar)
			}
			p.Plot.Draw(tc)
		}
	}
}

// Thumbnail size and spacing of the legend strip.
const (
	legendThumb = vg.Length(11)
	legendGap   = vg.Length(3)
	legendSep   = vg.Length(9)
)

func (e LegendEntry) thumbsWidth() vg.Length { return legendThumb * vg.Length(max(len(e.Thumbs), 1)) }

// legendLines packs the entries into lines no wider than width and returns the entries per line.
func legendLines(entries []LegendEntry, width vg.Length) [][]LegendEntry {
	sty := textStyle(LegendSize)
	var lines [][]LegendEntry
	var line []LegendEntry
	var used vg.Length
	for _, e := range entries {
		// 10 % slack: an SVG viewer may substitute a slightly wider font.
		w := e.thumbsWidth() + legendGap + sty.Width(e.Label)*1.1
		if len(line) > 0 && used+legendSep+w > width {
			lines = append(lines, line)
			line, used = nil, 0
		}
		if len(line) > 0 {
			used += legendSep
		}
		line = append(line, e)
		used += w
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines
}

func legendLineHeight() vg.Length { return textStyle(LegendSize).Height("Mg") * 1.45 }

func legendHeight(entries []LegendEntry, width vg.Length) vg.Length {
	return vg.Length(len(legendLines(entries, width)))*legendLineHeight() + 0.06*vg.Inch
}

// drawLegend draws the entries centred line by line from the top of c.
func drawLegend(c draw.Canvas, entries []LegendEntry) {
	sty := textStyle(LegendSize)
	sty.YAlign = draw.YCenter
	lh := legendLineHeight()
	y := c.Max.Y - 0.03*vg.Inch - lh/2
	for _, line := range legendLines(entries, c.Max.X-c.Min.X) {
		var total vg.Length
		for i, e := range line {
			if i > 0 {
				total += legendSep
			}
			total += e.thumbsWidth() + legendGap + sty.Width(e.Label)
		}
		x := c.Min.X + (c.Max.X-c.Min.X-total)/2
		for _, e := range line {
			for _, t := range e.Thumbs {
				tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
					Min: vg.Point{X: x, Y: y - lh/2 + 1}, Max: vg.Point{X: x + legendThumb, Y: y + lh/2 - 1}}}
				t.Thumbnail(&tc)
				x += legendThumb
			}
			x += legendGap
			c.FillText(sty, vg.Point{X: x, Y: y}, e.Label)
			x += sty.Width(e.Label) + legendSep
		}
		y -= lh
	}
}

// render draws the figure onto a new canvas of the format ("png", "svg" or "pdf") and returns its bytes.
func (f Figure) render(format string) (out []byte, err error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	w, h := f.size()
	defer func() { // gonum/plot reports bad input (an empty range, a bad colour map) by panicking
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("figure: drawing %s: %v", format, r)
		}
	}()
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		if px := float64(w) * float64(h) * float64(f.dpi()) * float64(f.dpi()) / (72 * 72); px > MaxPixels {
			return nil, fmt.Errorf("figure: %.0f × %.0f pt at %d dpi is %.3g pixels, more than the %.3g a PNG may have (lower the DPI)",
				float64(w), float64(h), f.dpi(), px, float64(MaxPixels))
		}
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(f.dpi()))}
	case "svg":
		c = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(f.EmbedFonts))
	case "pdf":
		c = newPDFCanvas(w, h)
	default:
		return nil, fmt.Errorf("figure: unknown format %q (png, svg or pdf)", format)
	}
	f.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figure: encoding %s: %w", format, err)
	}
	if format == "svg" {
		b := buf.Bytes()
		if !f.EmbedFonts {
			// Liberation Sans is metric-compatible with Arial: a viewer without it keeps the layout.
			b = bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
		}
		if f.Grid != nil { // keep the pixels of image grids sharp when scaled
			b = bytes.ReplaceAll(b, []byte("<image "), []byte(`<image style="image-rendering:optimizeSpeed;image-rendering:pixelated" `))
		}
		// vgsvg labels its embedded PNG images as JPEG, which strict renderers (librsvg) refuse.
		return bytes.ReplaceAll(b, []byte(`xlink:href="data:image/jpg;base64,`), []byte(`xlink:href="data:image/png;base64,`)), nil
	}
	return buf.Bytes(), nil
}

// PNG returns the figure as PNG bytes at f.DPI (for a notebook: gonbui.DisplayPNG).
func (f Figure) PNG() ([]byte, error) { return f.render("png") }

// SVG returns the figure as SVG bytes (for a notebook: gonbui.DisplaySVG(string(b))).
func (f Figure) SVG() ([]byte, error) { return f.render("svg") }

// PDF returns the figure as PDF bytes with embedded fonts. Its dates are fixed so that the bytes are
// deterministic (this sets the defaults of the fpdf package once per process).
func (f Figure) PDF() ([]byte, error) { return f.render("pdf") }

// WritePNG writes the figure as a PNG file, atomically.
func (f Figure) WritePNG(path string) error { return f.write(path, f.PNG) }

// WriteSVG writes the figure as an SVG file, atomically.
func (f Figure) WriteSVG(path string) error { return f.write(path, f.SVG) }

// WritePDF writes the figure as a PDF file, atomically.
func (f Figure) WritePDF(path string) error { return f.write(path, f.PDF) }

// Write writes the figure in the format its path's extension names (.png, .svg or .pdf), atomically.
func (f Figure) Write(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return f.WritePNG(path)
	case ".svg":
		return f.WriteSVG(path)
	case ".pdf":
		return f.WritePDF(path)
	}
	return fmt.Errorf("figure: %s: unknown extension (want .png, .svg or .pdf)", path)
}

func (f Figure) write(path string, encode func() ([]byte, error)) error {
	b, err := encode()
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeAtomic(path, b)
}

// writeAtomic writes data to path through the project's one atomic writer (a temporary file in the same
// directory, synced and renamed; removed on failure), with ordinary permissions.
func writeAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data, 0o644) }

// grid returns rows × cols for n panels: one row up to 3 panels, otherwise as square as possible.
func gridShape(n int) (rows, cols int) {
	if n <= 3 {
		return 1, n
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	return (n + cols - 1) / cols, cols
}
