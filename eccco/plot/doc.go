// Package plot draws the kinds of figure the ECCCo paper shows, with gonum/plot, from plain data.
//
// It knows no model, data set or experiment: its inputs are slices of float32 rows (row-major, two
// features for the plane), class labels, image pixels in [−1, 1], surfaces over a grid, means and
// standard deviations. Package figures holds the paper's recipes, which compute those from an experiment
// and call this package.
//
// # Figures
//
// A Figure is a value: a grid of Panels (each a gonum *plot.Plot, optionally with a colour bar) with a
// shared legend strip below, or an ImageGrid. It renders to PNG (at DPI, DefaultDPI 300), SVG and PDF, as
// bytes for a notebook (GoNB: gonbui.DisplayPNG(b) or gonbui.DisplaySVG(string(b))) or as files:
//
//	f, err := plot.POC(data, panels, classNames)
//	b, err := f.PNG()                    // or f.SVG(), f.PDF()
//	err = f.WritePNG("figures/poc.png")  // or WriteSVG, WritePDF, Write (by extension)
//
// Files are written atomically: to a temporary file in the target's directory (created if missing),
// synced and renamed into place; a failed write leaves no temporary file and the old file untouched.
// Output is deterministic: the same figure gives the same bytes (PDF dates are fixed). Figures are drawn
// at their printed size (ColumnWidth 3.3 in, TextWidth 7 in) with 7–9 pt sans-serif text (Liberation
// Sans, metric-compatible with Arial), so they stay readable in the paper's columns. PDF output sets
// text in Unicode (≥, →, Ω, λ₂ are text a reader copies and searches) with each font embedded as a
// subset of the glyphs used; a combining mark (the circumflex of q̂) is drawn as its glyph's outline over
// the character before it, as PNG and SVG show it. PDF paths keep two decimals of a point, a scatter's
// circles share one path moved into place, colours are set only where they change, and grey images stay
// grey (one byte a pixel): the paper's Fig. 2, 10,000 points, is 130 KB; what the PDF draws is checked
// against the PNG by rendering it back with poppler.
//
// # Composed figures
//
//   - ImageRow(images, titles, h, w): a row of images with titles, such as a factual and each
//     generator's counterfactual (the paper's Fig. 1 and Fig. 3).
//   - POC(data, panels, classNames): per GeneratorPanel, a plane with a VectorField (the negative gradient
//     of a search objective on a grid), a search Path (From the factual's class, To the target) and the
//     target class's samples as bright yellow stars (Fig. 2, fig:poc).
//   - POCGen(data, samples, classNames): samples[k], the samples of class k, as stars in the class
//     colour over the data (fig:poc-gen).
//   - CPDiff(&data, setSize, smoothSetSize, loss, classNames): three Surfaces side by side, each a heat
//     map with its colour bar, Z[iy][ix] the value at (X[ix], Y[iy]) (fig:cp-diff).
//   - SampleGrid(samples, classNames, h, w): row k the samples of class k (fig:mnist-gen).
//   - CounterfactualMatrix(originals, counterfactuals, classNames, h, w): originals[i] on the diagonal
//     (framed), counterfactuals[i][j], original i turned into class j, in column j of row i (the
//     appendix's 10 × 10 grids).
//   - Reconstructions(originals, reconstructions, cols, h, w): originals above their reconstructions
//     (fig:vae-rec).
//   - MetricChart(metric, series, generators): mean ± sd per generator, one MetricSeries per model.
//
// Image grids return an *ImageGrid: adjust it (titles, Scale, DPI, FitWidth) and call Figure. Its raster
// is laid out in whole PNG pixels, each image pixel Scale × Scale pixels, and CellBounds says where a
// cell lands in the PNG.
//
// # Building blocks
//
// Plane describes any panel over the synthetic plane — a heat map (Surface, viridis with a colour bar and
// optional contour Levels), the data (Labelled), a gradient field (VectorField), Samples (stars) and
// counterfactual Paths (a line with a dot per step, the factual as a circle in its class colour, the
// counterfactual as a diamond in the target's), drawn in that order — and PlaneFigure arranges planes
// with a shared legend. Each panel records its layers (Panel.Layers: DataLayer, ArrowLayer, SampleLayer,
// PathLayer, SurfaceLayer, MetricLayer) so that tests and callers can check what is drawn.
//
// Gradient fields are normalised for readability: arrows are proportional to |v| up to a round clip value
// (at most the median |v|, VectorField.ClipQuantile), full length beyond it, and the key in the panel's
// top-right corner shows a full-length arrow and "|v| ≥ clip"; DirectionOnly draws every arrow at the
// same length. Arrow lengths are set on the page (0.9 of the grid spacing), directions follow v as
// plotted.
//
// Class colours are the same in every figure: ClassColor(0) is the paper's blue, ClassColor(1) its
// orange (the default palette of Julia's Plots.jl, with which the paper's figures were drawn), then
// green, purple, …; series of a chart use the same cycle.
package plot
