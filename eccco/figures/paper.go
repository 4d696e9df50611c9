package figures

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

// The functions in this file make the paper's figures from an experiment (package experiment): they
// train or load what they need, pick their factuals deterministically (the first clean test rows of a
// class, experiment.TestRowsOf), and hand plain data to the drawing functions of this package.

// POCGenerators are the four generator flavours of Fig. 2 (fig:poc), in its panel order.
var POCGenerators = []string{string(catalogue.Wachter), string(catalogue.ECCCoNoEBM), string(catalogue.ECCCoNoCP), string(catalogue.ECCCo)}

// FieldPoints is the number of grid points per axis of the gradient fields.
const FieldPoints = 20

// SurfacePoints is the number of grid points per axis of the conformal surfaces (fig:cp-diff).
const SurfacePoints = 80

// Synthetic is what the 2-D figures of one synthetic data set and model show: one factual of class
// From turned into class To by each generator, the generators' objectives over the plane, the
// model's SGLD samples of every class, and its conformal surfaces.
type Synthetic struct {
	Data       plot.Labelled
	ClassNames []string
	Panels     []plot.GeneratorPanel
	// Samples are the model's conditional SGLD samples per class (the unfaithfulness samples of run 1).
	Samples [][]float32
	// Grid holds the conformal quantities over the plane for class To.
	Grid     *conformal.Grid
	From, To int
	// Results are the searches behind the panels, in panel order.
	Results []*experiment.Explanation
	// EndEnergy is the model's energy E(x′|To) = −logit_To(x′) at each panel's counterfactual.
	EndEnergy []float64
	// QHat is the conformal threshold behind Grid.
	QHat float64
}

// plane returns the training data's bounding box, widened by 5 % on each side.
func plane(e *experiment.Experiment) (x, y [2]float64) {
	lo, hi := e.Split().Train.Bounds()
	pad := func(a, b float32) [2]float64 {
		d := 0.05 * float64(b-a)
		return [2]float64{float64(a) - d, float64(b) + d}
	}
	return pad(lo[0], hi[0]), pad(lo[1], hi[1])
}

// SyntheticData computes what Fig. 2 (fig:poc), fig:poc-gen and fig:cp-diff show for a 2-D data set: the
// first clean test row of class 1 (the paper's orange) explained into class 0 (blue) by gens (nil:
// POCGenerators), with paths recorded.
func SyntheticData(ctx context.Context, e *experiment.Experiment, kind models.Kind, gens []string) (*Synthetic, error) {
	train := e.Split().Train
	if train.D() != 2 {
		return nil, fmt.Errorf("figures: %s has %d features; the plane figures need 2", e.Dataset(), train.D())
	}
	if gens == nil {
		gens = POCGenerators
	}
	const from, to = 1, 0
	g, err := experiment.ParseGenerators(gens...)
	if err != nil {
		return nil, err
	}
	r, err := e.Run(ctx, experiment.RunRequest{Kind: kind, Run: 1, One: &experiment.Transition{From: from, To: to}, Generators: g})
	if err != nil {
		return nil, err
	}
	f := r.Factuals
	r.RecordPath, r.SkipMetrics = true, true
	xr, yr := plane(e)
	var pts []float32
	for iy := range FieldPoints {
		for ix := range FieldPoints {
			pts = append(pts, float32(xr[0]+(xr[1]-xr[0])*float64(ix)/(FieldPoints-1)), float32(yr[0]+(yr[1]-yr[0])*float64(iy)/(FieldPoints-1)))
		}
	}
	s := &Synthetic{Data: plot.Labelled{X: train.X, Y: train.Y}, ClassNames: train.ClassNames, From: from, To: to}
	samples, err := r.Samples(ctx)
	if err != nil {
		return nil, err
	}
	s.Samples = samples.Samples
	for _, gen := range g {
		x, err := r.Explain(ctx, gen)
		if err != nil {
			return nil, err
		}
		value, err := r.Generator(gen)
		if err != nil {
			return nil, err
		}
		field, err := counterfactual.ObjectiveField(e.Backend(), r.Model, value, f.X, to, pts)
		if err != nil {
			return nil, fmt.Errorf("figures: the objective field of %s: %w", gen.Name, err)
		}
		s.Results = append(s.Results, x)
		logits, err := models.Logits(e.Backend(), r.Model, x.Result.X)
		if err != nil {
			return nil, fmt.Errorf("figures: the energy of %s's counterfactual: %w", gen.Name, err)
		}
		s.EndEnergy = append(s.EndEnergy, -float64(logits[to]))
		s.Panels = append(s.Panels, plot.GeneratorPanel{Generator: gen.Name, Field: &plot.VectorField{Points: field.Points, Vectors: field.NegGradient},
			Path: plot.Path{Steps: x.Result.Paths[0], From: from, To: to}, Samples: s.Samples[to]})
	}
	s.QHat = r.Ingredients.Calibrated.QHat
	if s.Grid, err = conformal.GridValues(e.Backend(), r.Ingredients.Calibrated, xr, yr, SurfacePoints, to, conformal.LossOptions{}); err != nil {
		return nil, fmt.Errorf("figures: conformal surfaces: %w", err)
	}
	return s, nil
}

// POC draws Fig. 2 (fig:poc) from SyntheticData.
func (s *Synthetic) POC() (plot.Figure, error) { return plot.POC(s.Data, s.Panels, s.ClassNames) }

// POCGen draws fig:poc-gen: the SGLD samples (stars) over the data.
func (s *Synthetic) POCGen() (plot.Figure, error) {
	return plot.POCGen(s.Data, s.Samples, s.ClassNames)
}

// CPDiff draws fig:cp-diff: prediction-set size, smooth set size and the configurable classification
// loss over the plane.
func (s *Synthetic) CPDiff() (plot.Figure, error) {
	sf := func(z [][]float64, label string, levels ...float64) plot.Surface {
		return plot.Surface{X: s.Grid.X, Y: s.Grid.Y, Z: z, Label: label, Levels: levels}
	}
	omega := sf(s.Grid.SmoothSetSize, "smooth set size")
	if r := s.OmegaRange(); r < minOmegaRange {
		omega.Note = fmt.Sprintf("Ω varies by %.2g only", r)
		if r == 0 {
			omega.Note = fmt.Sprintf("Ω = %.2g everywhere", s.Grid.SmoothSetSize[0][0])
		}
		if len(s.ClassNames) == 2 && s.QHat <= 0.5 {
			omega.Note += fmt.Sprintf("\n(2 classes,\nq̂ = %.2g ≤ 0.5)", s.QHat)
		}
	}
	return plot.CPDiff(&s.Data, sf(s.Grid.SetSize, "set size", 1.5), omega,
		sf(s.Grid.Loss, "classification loss"), s.ClassNames)
}

// imageShape returns the experiment's image height and width, or an error for non-image data.
func imageShape(e *experiment.Experiment) (int, int, error) {
	img := e.Split().Train.Image
	if img == nil {
		return 0, 0, fmt.Errorf("figures: %s is not an image data set", e.Dataset())
	}
	return img.Height, img.Width, nil
}

// Made is a figure with the criteria its recipe measured on the data it draws.
type Made struct {
	Figure   plot.Figure
	Criteria []Criterion
}

// Transformation draws one factual of class from, turned into class to by each generator, as a row of
// images titled with the generator and p(y⁺|x′): Fig. 1 (fig:motiv: a 9 into a 7 by Wachter, Schut and
// REVISE for the MNIST MLP) and Fig. 3 (fig:mnist-bmk: a 3 into a 5 by ECCCo, ECCCo+, REVISE, Schut and
// Wachter for LeNet-5). TransformationChecked also measures it.
func Transformation(ctx context.Context, e *experiment.Experiment, kind models.Kind, from, to int, gens ...string) (plot.Figure, error) {
	m, err := TransformationChecked(ctx, e, kind, from, to, nil, nil, gens...)
	return m.Figure, err
}

// TransformationChecked is Transformation with its criteria: every counterfactual valid (p(y⁺|x′) ≥ 0.5)
// but those of the generators in invalid, and the counterfactuals of the generators in plausible read
// as the target by a 1-nearest-neighbour classifier on the training images (NearestLabels: independent
// of the model searched).
func TransformationChecked(ctx context.Context, e *experiment.Experiment, kind models.Kind, from, to int, invalid, plausible []string, gens ...string) (Made, error) {
	g, err := experiment.ParseGenerators(gens...)
	if err != nil {
		return Made{}, err
	}
	return TransformationOf(ctx, e, kind, from, to, invalid, plausible, g...)
}

// TransformationOf is TransformationChecked for generators given as values, with their overrides
// (experiment.Generator.Set), titled by their names.
func TransformationOf(ctx context.Context, e *experiment.Experiment, kind models.Kind, from, to int, invalid, plausible []string, g ...experiment.Generator) (Made, error) {
	h, w, err := imageShape(e)
	if err != nil {
		return Made{}, err
	}
	r, err := e.Run(ctx, experiment.RunRequest{Kind: kind, Run: 1, One: &experiment.Transition{From: from, To: to}, Generators: g})
	if err != nil {
		return Made{}, err
	}
	f := r.Factuals
	gens := make([]string, len(g))
	for i := range g {
		gens[i] = g[i].Name
	}
	r.SkipMetrics = true
	train := e.Split().Train
	names := train.ClassNames
	images := [][]float32{f.X}
	titles := []string{"factual"}
	var p []float64
	var cfs []float32
	for _, gen := range g {
		x, err := r.Explain(ctx, gen)
		if err != nil {
			return Made{}, err
		}
		images = append(images, x.Result.X)
		cfs = append(cfs, x.Result.X...)
		p = append(p, float64(x.Result.Probability[0]))
		titles = append(titles, fmt.Sprintf("%s\np=%.2f", gen.Name, x.Result.Probability[0]))
	}
	grid, err := plot.ImageRow(images, titles, h, w)
	if err != nil {
		return Made{}, err
	}
	grid.ColHeader = fmt.Sprintf("%s → target %s", className(names, from), className(names, to))
	fig, err := grid.Figure()
	if err != nil {
		return Made{}, err
	}
	read, err := NearestLabels(train.X, train.Y, train.D(), cfs)
	if err != nil {
		return Made{}, err
	}
	crit := []Criterion{ValidCount("the counterfactuals are valid", gens, p, invalid...)}
	if len(plausible) > 0 {
		crit = append(crit, readAsTarget(fmt.Sprintf("%s's counterfactuals look like the target", strings.Join(plausible, " and ")), gens, read, to, names, plausible))
	}
	return Made{Figure: fig, Criteria: crit}, nil
}

// readAsTarget is the criterion that the counterfactuals of the generators in which are read as the
// target class by the nearest-neighbour reader: Value is the share of them that are.
func readAsTarget(claim string, gens []string, read []int, to int, names, which []string) Criterion {
	want := map[string]bool{}
	for _, w := range which {
		want[w] = true
	}
	hits, n := 0, 0
	var parts []string
	for i, g := range gens {
		parts = append(parts, fmt.Sprintf("%s read as %s", g, className(names, read[i])))
		if want[g] {
			n++
			if read[i] == to {
				hits++
			}
		}
	}
	v := share(hits, n)
	return Criterion{Claim: claim, Measure: "share of them whose nearest training image is of the target class (1 holds)", Value: v,
		Detail: strings.Join(parts, ", "), Holds: n > 0 && hits == n}
}

// CounterfactualGrid draws the appendix's 10 × 10 MNIST grids (fig:mnist-eccco-*, fig:mnist-revise-*):
// one clean test image of each class on the diagonal and, across its row, its counterfactual into every
// other class by the generator — all 90 searched in one batch.
func CounterfactualGrid(ctx context.Context, e *experiment.Experiment, kind models.Kind, generator string) (plot.Figure, error) {
	g, err := CounterfactualGridChecked(ctx, e, kind, generator)
	return g.Figure, err
}

// GridMade is a counterfactual grid with what it measured: ReadAsTarget is the share of its
// counterfactuals whose nearest training image is of their target class (NearestLabels), Valid the
// share with p(y⁺|x′) ≥ 0.5.
type GridMade struct {
	Made
	ReadAsTarget, Valid float64
}

// CounterfactualGridChecked is CounterfactualGrid with its measures (GridMade) and the criterion that its
// counterfactuals mostly read as their target (ReadAsTarget ≥ 0.5).
func CounterfactualGridChecked(ctx context.Context, e *experiment.Experiment, kind models.Kind, generator string) (GridMade, error) {
	h, w, err := imageShape(e)
	if err != nil {
		return GridMade{}, err
	}
	g, err := experiment.ParseGenerators(generator)
	if err != nil {
		return GridMade{}, err
	}
	test := e.Split().Test
	k := test.K()
	originals := make([][]float32, k)
	var rows, targets []int
	for c := range k {
		r, err := e.TestRowsOf(ctx, kind, c, 1)
		if err != nil {
			return GridMade{}, err
		}
		originals[c] = test.Row(r[0])
		for t := range k {
			if t != c {
				rows, targets = append(rows, r[0]), append(targets, t)
			}
		}
	}
	f, err := e.FactualRows(ctx, kind, 1, rows, -1)
	if err != nil {
		return GridMade{}, err
	}
	f.Targets = targets
	r, err := e.Run(ctx, experiment.RunRequest{Kind: kind, Run: 1, Factuals: f, Generators: g})
	if err != nil {
		return GridMade{}, err
	}
	r.SkipMetrics = true
	x, err := r.Explain(ctx, g[0])
	if err != nil {
		return GridMade{}, err
	}
	d := h * w
	cfs := make([][][]float32, k)
	for i := range f.N() {
		c, t := i/(k-1), targets[i]
		if cfs[c] == nil {
			cfs[c] = make([][]float32, k)
		}
		cfs[c][t] = x.Result.X[i*d : (i+1)*d]
	}
	grid, err := plot.CounterfactualMatrix(originals, cfs, test.ClassNames, h, w)
	if err != nil {
		return GridMade{}, err
	}
	fig, err := grid.Figure()
	if err != nil {
		return GridMade{}, err
	}
	train := e.Split().Train
	read, err := NearestLabels(train.X, train.Y, train.D(), x.Result.X)
	if err != nil {
		return GridMade{}, err
	}
	m := GridMade{Made: Made{Figure: fig}}
	m.ReadAsTarget, m.Valid = gridShares(read, targets, x.Result.Probability)
	m.Criteria = []Criterion{{Claim: fmt.Sprintf("%s's counterfactuals mostly look like their target", generator),
		Measure: "share of the grid's counterfactuals whose nearest training image is of the target class (≥ 0.5 holds)",
		Value:   m.ReadAsTarget, Detail: fmt.Sprintf("valid (p ≥ 0.5): %.2f", m.Valid), Holds: m.ReadAsTarget >= 0.5}}
	return m, nil
}

// gridShares returns the share of counterfactuals read as their target and the share valid.
func gridShares(read, targets []int, p []float32) (readAsTarget, valid float64) {
	hits, v := 0, 0
	for i, t := range targets {
		if read[i] == t {
			hits++
		}
		if p[i] >= 0.5 {
			v++
		}
	}
	return share(hits, len(targets)), share(v, len(targets))
}

// GeneratedImages draws fig:mnist-gen: the model's conditional SGLD samples of every class, one row
// per class (the sampler of the experiment's settings: experiment.Experiment.ClassOptions).
func GeneratedImages(ctx context.Context, e *experiment.Experiment, kind models.Kind, perClass int) (plot.Figure, error) {
	m, err := GeneratedImagesChecked(ctx, e, kind, perClass)
	return m.Figure, err
}

// GeneratedImagesChecked is GeneratedImages with its criteria: the samples of each class differ (their
// mean pairwise distance against that of as many training images of the class, the smallest ratio over
// the classes, ≥ 0.5) and read as their class (the share whose nearest training image is of it, ≥ 0.5).
func GeneratedImagesChecked(ctx context.Context, e *experiment.Experiment, kind models.Kind, perClass int) (Made, error) {
	h, w, err := imageShape(e)
	if err != nil {
		return Made{}, err
	}
	m, err := e.Model(ctx, kind)
	if err != nil {
		return Made{}, err
	}
	train := e.Split().Train
	opts, err := e.ClassOptions()
	if err != nil {
		return Made{}, err
	}
	opts.Keep = min(perClass, opts.Chains)
	per, err := energy.SamplePerClass(ctx, e.Backend(), m, opts, experiment.SeedFor(e.Seed(), e.Dataset(), string(kind), "figure samples"))
	if err != nil {
		return Made{}, fmt.Errorf("figures: sampling the %s: %w", kind, err)
	}
	samples := make([][][]float32, len(per))
	d := h * w
	for c, s := range per {
		for i := 0; i+d <= len(s.X); i += d {
			samples[c] = append(samples[c], s.X[i:i+d])
		}
	}
	grid, err := plot.SampleGrid(samples, train.ClassNames, h, w)
	if err != nil {
		return Made{}, err
	}
	fig, err := grid.Figure()
	if err != nil {
		return Made{}, err
	}
	crit, err := sampleCriteria(train.X, train.Y, d, samples, train.ClassNames)
	return Made{Figure: fig, Criteria: crit}, err
}

// sampleCriteria measures conditional samples (samples[k] of class k) against reference data: diversity
// (mean pairwise distance ÷ that of the class's first as many reference rows, smallest over the classes,
// ≥ 0.5) and recognition (share whose nearest reference row is of their class, ≥ 0.5).
func sampleCriteria(refX []float32, refY []int, d int, samples [][][]float32, names []string) ([]Criterion, error) {
	minRatio := math.Inf(1)
	hits, n := 0, 0
	var parts []string
	refRows := rowsOf(refX, d)
	for k, s := range samples {
		if len(s) == 0 {
			continue
		}
		var ref [][]float32
		for i, y := range refY {
			if y == k && len(ref) < max(len(s), 2) {
				ref = append(ref, refRows[i])
			}
		}
		ratio := MeanPairwiseDistance(s) / MeanPairwiseDistance(ref)
		minRatio = math.Min(minRatio, ratio)
		parts = append(parts, fmt.Sprintf("%s %.2f", className(names, k), ratio))
		var flat []float32
		for _, x := range s {
			flat = append(flat, x...)
		}
		read, err := NearestLabels(refX, refY, d, flat)
		if err != nil {
			return nil, err
		}
		for _, r := range read {
			if r == k {
				hits++
			}
		}
		n += len(read)
	}
	rec := share(hits, n)
	return []Criterion{
		{Claim: "the conditional samples vary within a class", Measure: "samples' mean pairwise distance ÷ the class's training images', smallest over the classes (≥ 0.5 holds)",
			Value: minRatio, Detail: strings.Join(parts, ", "), Holds: minRatio >= 0.5},
		{Claim: "the conditional samples look like their class", Measure: "share of samples whose nearest training image is of their class (≥ 0.5 holds)",
			Value: rec, Detail: fmt.Sprintf("%d of %d", hits, n), Holds: rec >= 0.5},
	}, nil
}

// VAEReconstructions draws fig:vae-rec: n test images drawn at random (seeded) above their
// reconstructions by REVISE's VAE.
func VAEReconstructions(ctx context.Context, e *experiment.Experiment, n int) (plot.Figure, error) {
	m, err := VAEReconstructionsChecked(ctx, e, n)
	return m.Figure, err
}

// VAEReconstructionsChecked is VAEReconstructions with its criterion: the reconstructions keep their
// original's class (the share whose nearest training image is of the original's class, ≥ 0.9).
func VAEReconstructionsChecked(ctx context.Context, e *experiment.Experiment, n int) (Made, error) {
	h, w, err := imageShape(e)
	if err != nil {
		return Made{}, err
	}
	v, err := e.VAE(ctx)
	if err != nil {
		return Made{}, err
	}
	test := e.Split().Test
	if n < 1 {
		return Made{}, fmt.Errorf("%w: %d images", experiment.ErrInvalid, n)
	}
	rows := data.NewRand(experiment.SeedFor(e.Seed(), e.Dataset(), "vae reconstructions")).Perm(test.N())[:min(n, test.N())]
	var x []float32
	for _, r := range rows {
		x = append(x, test.Row(r)...)
	}
	rec, err := v.Reconstruct(e.Backend(), x)
	if err != nil {
		return Made{}, err
	}
	d := test.D()
	var orig, recs [][]float32
	for i := range rows {
		orig = append(orig, x[i*d:(i+1)*d])
		recs = append(recs, rec[i*d:(i+1)*d])
	}
	grid, err := plot.Reconstructions(orig, recs, min(n, 10), h, w)
	if err != nil {
		return Made{}, err
	}
	fig, err := grid.Figure()
	if err != nil {
		return Made{}, err
	}
	train := e.Split().Train
	read, err := NearestLabels(train.X, train.Y, d, rec)
	if err != nil {
		return Made{}, err
	}
	hits := 0
	for i, r := range rows {
		if read[i] == test.Y[r] {
			hits++
		}
	}
	kept := share(hits, len(rows))
	return Made{Figure: fig, Criteria: []Criterion{{Claim: "REVISE's VAE is not weak: its reconstructions are good",
		Measure: "share of reconstructions whose nearest training image is of the original's class (≥ 0.9 holds)",
		Value:   kept, Detail: fmt.Sprintf("%d of %d", hits, len(rows)), Holds: kept >= 0.9}}}, nil
}

// BenchmarkChart draws one metric of a data set's benchmark cells (subset "all") per generator and model,
// mean ± sd of the run means, as in the paper's tables.
func BenchmarkChart(cells []compare.Cell, dataset, metric string) (plot.Figure, error) {
	var series []plot.MetricSeries
	index := map[string]int{}
	var gens []string
	seenGen := map[string]bool{}
	for _, c := range cells {
		if c.Dataset != dataset || c.Metric != metric || c.Subset != "all" || math.IsNaN(c.Mean) {
			continue
		}
		i, ok := index[c.Model]
		if !ok {
			i = len(series)
			index[c.Model] = i
			series = append(series, plot.MetricSeries{Name: c.Model})
		}
		series[i].Values = append(series[i].Values, plot.MetricValue{Generator: c.Generator, Mean: c.Mean, SD: c.SD})
		if !seenGen[c.Generator] {
			seenGen[c.Generator] = true
			gens = append(gens, c.Generator)
		}
	}
	if len(series) == 0 {
		return plot.Figure{}, fmt.Errorf("figures: no %s cells of %s in the results", metric, dataset)
	}
	return plot.MetricChart(fmt.Sprintf("%s: %s", dataset, metric), series, gens)
}
