// Package figures draws the figures of the ECCCo paper (Altmeyer et al., AAAI-24) with gonum/plot, from
// plain data: slices of float32 rows laid out as data.Dataset's (row-major, two features for the
// synthetic plane), labels, image pixels in [−1, 1], means and standard deviations. It computes nothing
// about models; the experiment layer feeds it (counterfactual.Search paths, counterfactual.ObjectiveField
// gradients, energy SGLD samples, conformal.GridValues surfaces, benchmark tables).
//
// # Figures
//
// A Figure is a value: a grid of Panels (each a *plot.Plot, optionally with a colour bar) with a shared
// legend strip below, or an ImageGrid. It renders to PNG (at DPI, DefaultDPI 300), SVG and PDF, as bytes
// for a notebook (GoNB: gonbui.DisplayPNG(b) or gonbui.DisplaySVG(string(b))) or as files:
//
//	f, err := figures.POC(data, panels, classNames)
//	b, err := f.PNG()                    // or f.SVG(), f.PDF()
//	err = f.WritePNG("figures/poc.png")  // or WriteSVG, WritePDF, Write (by extension)
//
// Files are written atomically: to a temporary file in the target's directory (created if missing),
// synced and renamed into place; a failed write leaves no temporary file and the old file untouched.
// Output is deterministic: the same figure gives the same bytes (PDF dates are fixed). Figures are drawn
// at their printed size (ColumnWidth 3.3 in, TextWidth 7 in) with 7–9 pt sans-serif text (Liberation
// Sans, metric-compatible with Arial), so they stay readable in the paper's columns. PDF output encodes
// text in code page 1252, the only encoding of gonum/plot's PDF backend: characters outside it are
// spelled out ("≥" as ">=", "↓" as "(lower is better)", "Ω" as "Omega"); PNG and SVG keep them.
//
// # The paper's figures and what they need
//
//   - Fig. 1 (fig:motiv) and Fig. 3 (fig:mnist-bmk): ImageRow(images, titles, 28, 28) — the factual and
//     each generator's counterfactual, titles such as "Wachter\np = 0.98".
//   - Fig. 2 (fig:poc): POC(data, panels, classNames) — per generator, a GeneratorPanel with the
//     VectorField of counterfactual.ObjectiveField on a grid (Points and NegGradient), the search Path
//     (counterfactual.Result.Paths[i], From the factual's class, To the target) and the target class's
//     SGLD samples (bright yellow stars).
//   - fig:poc-gen: POCGen(data, samples, classNames), samples[k] the SGLD samples of class k (stars in
//     the class colour).
//   - fig:cp-diff: CPDiff(&data, setSize, smoothSetSize, loss, classNames), each a Surface; a
//     conformal.Grid gives them: Surface{X: g.X, Y: g.Y, Z: g.SetSize}, … (Z[iy][ix] at (X[ix], Y[iy])).
//   - fig:mnist-gen: SampleGrid(samples, classNames, 28, 28), row k the samples of class k.
//   - The appendix's 10 × 10 grids (fig:mnist-eccco-*, fig:mnist-revise-*):
//     CounterfactualMatrix(originals, counterfactuals, classNames, 28, 28) — originals[i] on the
//     diagonal (framed), counterfactuals[i][j], the counterfactual of original i into class j, in
//     column j of row i.
//   - fig:vae-rec: Reconstructions(originals, reconstructions, cols, 28, 28), originals above their
//     reconstructions.
//   - The benchmark's headline: MetricChart(metric, series, generators), mean ± sd per generator, one
//     series per model.
//
// Image grids return an *ImageGrid: adjust it (titles, Scale, DPI, FitWidth) and call Figure. Its raster
// is laid out in whole PNG pixels, each image pixel Scale × Scale pixels, and CellBounds says where a
// cell lands in the PNG.
//
// # Building blocks
//
// Plane describes any panel over the synthetic plane — a heat map (Surface, viridis with a colour bar and
// optional contour Levels), the data (Labelled), a gradient field (VectorField), SGLD Samples (stars) and
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
// green, purple, …; series of a chart use the same cycle. Package plots keeps its plain PNG grid for the
// command-line tool.
package figures
