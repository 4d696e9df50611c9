package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
)

// CustomTemplate is the paper's data set whose settings an experiment on a user's own data takes: its
// generator parameters (its row of catalogue.Datasets), ECCCo+'s PCA size, REVISE's VAE architecture and
// training, and the SGLD sampler of the unfaithfulness metric and of ECCCo-L1 (10 chains per class).
// ImageTemplate replaces it for a schema of image pixels (data.Schema.Image).
const CustomTemplate = "german-credit"

// ImageTemplate is the paper's data set whose settings an experiment on a user's images takes (a schema
// with data.Schema.Image), as CustomTemplate's for other data: MNIST's generator parameters (η 0.05,
// λ_cost 0.01, λ_setsize 0.1, λ_energy 0.3, no ridge), ECCCo+'s PCA of 28 components, REVISE's VAE, and
// the same SGLD sampler; the metrics' distance is the structural dissimilarity of the images
// (metrics.ImageDissimilarity), as the paper's for MNIST, for images of at least 11 × 11 pixels.
const ImageTemplate = "mnist"

// CustomOptions configure OpenCustom; the zero value takes every default.
type CustomOptions struct {
	// Backend runs the graphs; nil means backend.New() (pure Go, or GOMLX_BACKEND).
	Backend compute.Backend
	// Seed seeds the calibration split, the SGLD samples, the VAE and stochastic searches; 0 means
	// DefaultSeed unless SeedGiven is set.
	Seed uint64
	// SeedGiven makes Seed the seed even when it is 0 (as 'eccco explain --seed 0' asks).
	SeedGiven bool
	// Params are the generators' hyper-parameters; nil means CustomTemplate's (η 0.05, λ_cost 0.1,
	// λ_setsize 0.1, λ_energy 0.1, ridge 0.5), or ImageTemplate's for images. Generator.Set overrides
	// them per generator.
	Params *counterfactual.Params
	// MaxIterations caps each search; 0 means counterfactual.DefaultMaxIterations.
	MaxIterations int
	// Stop is the search's convergence rule (nil: counterfactual.GeneratorConditions, the paper's).
	Stop *counterfactual.Rule
	// Logf, when set, receives progress lines.
	Logf func(format string, args ...any)
}

// Custom is an experiment on a user's own data and model: a CSV read with its schema (data.Table) and a
// classifier of the schema's inputs (models.FromONNX, models.FromFunc, …), prepared as the paper's data
// sets are: the whole table is the generators' training data (conformal calibration on a seeded half of
// it, SGLD samples of the model, ECCCo+'s PCA, REVISE's VAE, the metrics' target-class rows).
//
// The search runs in the model's input space with every numeric and ordinal input standardised (mean 0,
// standard deviation 1 over the table, as the paper does for tabular data; one-hot inputs are left as
// they are): a linear bijection, so that the step size and the costs weigh the features alike. In it
// every step keeps the schema's constraints: bounds (Table.Bounds), mutability (immutable,
// increase-only, decrease-only) and valid one-hot groups (counterfactual.Request.OneHot), in feature and
// in latent space. At the end an ordinal input is rounded to its nearest level, every value is clamped
// once more in the data's units (so that an immutable value is the factual's exactly), the model predicts
// the result again and the metrics are computed for it, in the standardised space; the counterfactuals
// are reported in the data's units.
//
// A schema of image pixels (data.Schema.Image) takes ImageTemplate's settings instead of CustomTemplate's,
// and its search space is the paper's for images: every pixel mapped by one affine map from the pixels'
// common range (data.Table.ImageRange, such as 0 … 1) onto [−1, 1], not standardised pixel by pixel
// (which would stretch a pixel that barely varies in the data, and leave one that never does unmovable).
//
// The unfaithfulness metric's SGLD samples are drawn for the target classes of the rows scored only,
// each class once (10 chains of 500 steps, ImageTemplate's and CustomTemplate's sampler alike, seeded by
// the class; the classes a call lacks in one batched run, energy.SampleClasses) and kept for later calls: explaining or scoring n rows samples at most min(n, K) classes
// instead of all K, so the cost grows with the rows asked up to one draw of every class, and a row's
// metrics do not depend on the other rows asked with it.
type Custom struct {
	Table *data.Table
	// Model reads the schema's inputs in the data's units.
	Model   models.Classifier
	backend compute.Backend
	opts    CustomOptions
	params  counterfactual.Params

	std      *data.Standardizer
	scaled   models.Classifier // Model on standardised inputs
	train    *data.Dataset     // the table, standardised
	lo, hi   []float32         // bounds in the data's units
	slo, shi []float32         // the same, standardised
	mut      []counterfactual.Mutability
	groups   [][]int
	ordinal  []int // the inputs of the ordinal features
	vae      *vae.VAE
	prep     *preparation
	in       *counterfactual.Ingredients
	// preparedNames are the generators (canonical names) whose ingredients in holds, and prepared what
	// they need.
	preparedNames []string
	prepared      counterfactual.Needs
	evaluator     *metrics.Evaluator
	paper         catalogue.Dataset // the template's paper settings (CustomTemplate or ImageTemplate)
	samples       map[int][]float32 // the unfaithfulness metric's SGLD samples of each class drawn so far
	graphs        *models.Graphs    // the sampler's graph, shared by the classes' draws
}

// OpenCustom prepares an experiment on a table and a model of its schema's inputs. The model must read
// D = Schema.Width() inputs and give one logit per class of the table (an error wrapping ErrInvalid
// otherwise).
func OpenCustom(table *data.Table, clf models.Classifier, o CustomOptions) (*Custom, error) {
	if table == nil || clf == nil {
		return nil, fmt.Errorf("%w: a custom experiment needs a table and a model", ErrInvalid)
	}
	s, ds := table.Schema, table.Data
	if clf.NumFeatures() != s.Width() {
		return nil, fmt.Errorf("%w: the model reads %d inputs, the schema describes %d (%s)", ErrInvalid, clf.NumFeatures(), s.Width(), strings.Join(s.Columns(), ", "))
	}
	if clf.NumClasses() != ds.K() {
		return nil, fmt.Errorf("%w: the model gives %d classes, the data has %d in column %q: %s%s", ErrInvalid, clf.NumClasses(), ds.K(), s.Target, classCensus(table), classHint(s))
	}
	if o.Seed == 0 && !o.SeedGiven {
		o.Seed = DefaultSeed
	}
	if o.MaxIterations < 0 {
		return nil, fmt.Errorf("%w: max iterations %d must not be negative", ErrInvalid, o.MaxIterations)
	}
	b := o.Backend
	if b == nil {
		var err error
		if b, err = backend.New(); err != nil {
			return nil, err
		}
	}
	template := CustomTemplate
	if s.Image != nil {
		template = ImageTemplate
	}
	paper, err := catalogue.LookupDataset(template)
	if err != nil {
		return nil, err
	}
	p := paper.GeneratorParams()
	if o.Params != nil {
		p = *o.Params
	}
	c := &Custom{Table: table, Model: clf, backend: b, opts: o, params: p, paper: paper, groups: s.OneHotGroups(),
		samples: map[int][]float32{}, graphs: &models.Graphs{}}
	c.std = data.FitStandardizer(ds)
	if s.Image != nil {
		lo, hi := table.ImageRange()
		mid, half := (float64(lo)+float64(hi))/2, (float64(hi)-float64(lo))/2
		if !(half > 0) {
			half = 1 // every pixel the same and no range declared: nothing to scale
		}
		for j := range c.std.Mean {
			c.std.Mean[j], c.std.Scale[j] = mid, half
		}
	}
	for i, off := range s.Offsets() {
		switch f := s.Features[i]; f.Type {
		case data.Categorical:
			for j := range f.Width() {
				c.std.Mean[off+j], c.std.Scale[off+j] = 0, 1
			}
		case data.Ordinal:
			c.ordinal = append(c.ordinal, off)
		}
	}
	c.train = c.std.Transform(ds)
	c.lo, c.hi = table.Bounds()
	c.slo, c.shi = slices.Clone(c.lo), slices.Clone(c.hi)
	c.std.TransformRows(c.slo)
	c.std.TransformRows(c.shi)
	for _, m := range s.InputMutability() {
		mm, err := counterfactual.ParseMutability(string(m))
		if err != nil {
			return nil, err
		}
		c.mut = append(c.mut, mm)
	}
	c.scaled = &standardised{clf: clf, mean: c.std.Mean, scale: c.std.Scale} // a pointer: comparable, for c.graphs
	c.prep = &preparation{backend: b, paper: paper, train: c.train, vae: c.trainVAE}
	// A model whose output is not finite at a row of the table would be calibrated, sampled and scored
	// on NaNs (and predict class 0 there): refused, naming the rows.
	prob, err := models.Probabilities(b, clf, ds.X)
	if err != nil {
		return nil, fmt.Errorf("running the model on the data: %w", err)
	}
	if bad := nonFinite(prob, ds.K()); len(bad) > 0 {
		lines, rows := make([]string, 0, len(bad)), make([]string, 0, len(bad))
		for _, r := range bad[:min(len(bad), 10)] {
			rows = append(rows, strconv.Itoa(r))
			if r < len(table.Lines) {
				lines = append(lines, strconv.Itoa(table.Lines[r]))
			}
		}
		where := "data rows " + strings.Join(rows, ", ")
		if len(lines) == len(rows) {
			where = fmt.Sprintf("lines %s (%s)", strings.Join(lines, ", "), where)
		}
		if len(bad) > len(rows) {
			where += fmt.Sprintf(" and %d more", len(bad)-len(rows))
		}
		return nil, fmt.Errorf("%w: the model's output is not a finite number (NaN or ±Inf) at %d of the data's %d rows: %s; check those rows' values against what the model accepts",
			ErrInvalid, len(bad), ds.N(), where)
	}
	return c, nil
}

// nonFinite returns the rows (of k probabilities each) with a value that is NaN or infinite.
func nonFinite(prob []float32, k int) []int {
	var bad []int
	for i := 0; i*k < len(prob); i++ {
		for _, v := range prob[i*k : (i+1)*k] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				bad = append(bad, i)
				break
			}
		}
	}
	return bad
}

// classCensus lists the table's classes, the rarest first (a mistyped label is usually rare), each with
// its rows and the line of its first row.
func classCensus(t *data.Table) string {
	ds := t.Data
	count, first := make([]int, ds.K()), make([]int, ds.K())
	for i := range first {
		first[i] = -1
	}
	for r, y := range ds.Y {
		if count[y]++; first[y] < 0 {
			first[y] = r
		}
	}
	order := make([]int, ds.K())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return count[a] - count[b] })
	var parts []string
	for _, c := range order {
		rows := "rows"
		if count[c] == 1 {
			rows = "row"
		}
		where := ""
		if first[c] >= 0 {
			where = ", first at " + t.LineOf(first[c])
		}
		parts = append(parts, fmt.Sprintf("%q (%d %s%s)", ds.ClassNames[c], count[c], rows, where))
	}
	return strings.Join(parts, ", ")
}

// classHint suggests listing the classes in the schema when it does not.
func classHint(s *data.Schema) string {
	if s.Classes != nil {
		return ""
	}
	return "; if a label is mistyped, correct it, and list the model's classes in the schema (\"classes\") to have any other label refused with its line"
}

// standardised is a classifier of standardised inputs u: the model at x = u·scale + mean, computed in
// float64 (a column whose mean and scale dwarf its typical values, say one cell of 1e9 among values near
// 1000, loses those values' resolution in float32 arithmetic).
type standardised struct {
	clf         models.Classifier
	mean, scale []float64
}

func (s standardised) Logits(u *Node) *Node {
	g := u.Graph()
	d := len(s.mean)
	vec := func(v []float64) *Node { return Reshape(Const(g, slices.Clone(v)), 1, d) }
	x := Add(Mul(ConvertDType(u, dtypes.Float64), vec(s.scale)), vec(s.mean))
	return s.clf.Logits(ConvertDType(x, u.DType()))
}
func (s standardised) NumFeatures() int { return s.clf.NumFeatures() }
func (s standardised) NumClasses() int  { return s.clf.NumClasses() }

func (c *Custom) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// Backend runs the experiment's graphs.
func (c *Custom) Backend() compute.Backend { return c.backend }

// Bounds are the search's bounds of every model input, in the data's units (Table.Bounds).
func (c *Custom) Bounds() (lo, hi []float32) { return c.lo, c.hi }

// Targets returns the target class of each data row: target itself (a class index), or, for target < 0,
// the class other than the model's prediction that the model finds most probable ("other").
func (c *Custom) Targets(rows []int, target int) ([]int, error) {
	ds := c.Table.Data
	k := ds.K()
	if target >= k {
		return nil, fmt.Errorf("%w: target class %d; the classes are 0 … %d (%s)", ErrInvalid, target, k-1, strings.Join(ds.ClassNames, ", "))
	}
	x, err := c.rows(rows)
	if err != nil {
		return nil, err
	}
	prob, err := models.Probabilities(c.backend, c.Model, x)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(rows))
	for i, r := range rows {
		p := prob[i*k : (i+1)*k]
		pred := argmax(p, -1)
		if target >= 0 {
			if pred == target {
				return nil, fmt.Errorf("%w: data row %d is already predicted as %q; choose another target", ErrInvalid, r, ds.ClassNames[target])
			}
			out[i] = target
			continue
		}
		out[i] = argmax(p, pred)
	}
	return out, nil
}

// argmax returns the index of the largest entry of p other than skip.
func argmax(p []float32, skip int) int {
	best := -1
	for j, v := range p {
		if j != skip && (best < 0 || v > p[best]) {
			best = j
		}
	}
	return best
}

// rows returns the given data rows in the data's units.
func (c *Custom) rows(rows []int) ([]float32, error) {
	ds := c.Table.Data
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no data rows to explain", ErrInvalid)
	}
	x := make([]float32, 0, len(rows)*ds.D())
	for _, r := range rows {
		if r < 0 || r >= ds.N() {
			return nil, fmt.Errorf("%w: data row %d does not exist (the table has rows 0 … %d)", ErrInvalid, r, ds.N()-1)
		}
		x = append(x, ds.Row(r)...)
	}
	return x, nil
}

// ingredients prepares what the generators need (see CustomTemplate), as the paper's data sets are
// prepared (preparation): again only when a generator needs an ingredient (samples, PCA, VAE) that was not
// prepared before, then for the generators of both calls. The calibration is always prepared (the
// metrics need it).
func (c *Custom) ingredients(ctx context.Context, gens []Generator) (counterfactual.Ingredients, error) {
	names, err := paperNeeds(gens)
	if err != nil {
		return counterfactual.Ingredients{}, err
	}
	need, err := catalogue.NeedsOf(names...)
	if err != nil {
		return counterfactual.Ingredients{}, err
	}
	need.Calibrated = true // prepared every time
	if c.in != nil && c.prepared.Or(need) == c.prepared {
		return *c.in, nil
	}
	all := slices.Clone(names)
	for _, n := range c.preparedNames {
		if !slices.Contains(all, n) {
			all = append(all, n)
		}
	}
	if len(all) == 0 {
		all = []string{string(catalogue.ECCCo)} // the calibration, which the metrics need
	}
	c.logf("preparing the generators' ingredients (%s)", strings.Join(all, ", "))
	in, _, err := c.prep.ingredients(ctx, c.scaled, all, SeedFor(c.opts.Seed, "custom", "ingredients"), counterfactual.IngredientOptions{}, false)
	if err != nil {
		return counterfactual.Ingredients{}, err
	}
	c.in, c.preparedNames, c.prepared = &in, all, c.prepared.Or(need)
	return in, nil
}

// trainVAE trains REVISE's VAE on the table, once, with the template's architecture and training.
func (c *Custom) trainVAE(ctx context.Context) (*vae.VAE, error) {
	if c.vae != nil {
		return c.vae, nil
	}
	c.logf("training REVISE's VAE on %d rows", c.train.N())
	spec, err := c.paper.VAESpec(c.train.D())
	if err != nil {
		return nil, err
	}
	v, err := vae.New(c.backend, spec, SeedFor(c.opts.Seed, "custom", "vae"))
	if err != nil {
		return nil, err
	}
	to := c.paper.VAETrainOptions()
	to.Seed = SeedFor(c.opts.Seed, "custom", "vae-train")
	if _, err := vae.Train(ctx, c.backend, v, c.train, to); err != nil {
		return nil, fmt.Errorf("training REVISE's VAE: %w", err)
	}
	c.vae = v
	return v, nil
}

// Evaluator scores counterfactuals (standardised inputs) with the paper's metrics: the calibrated model,
// the table's rows of the target class, and for images the structural dissimilarity (images of at least
// SSIM's 11 × 11 window; smaller ones keep the Euclidean distance). It holds no SGLD
// samples: Custom scores unfaithfulness against the samples of each row's target class (classSamples).
func (c *Custom) Evaluator(ctx context.Context) (*metrics.Evaluator, error) {
	if c.evaluator != nil {
		return c.evaluator, nil
	}
	in, err := c.ingredients(ctx, nil)
	if err != nil {
		return nil, err
	}
	ev := &metrics.Evaluator{Backend: c.backend, Model: c.scaled, Calibrated: in.Calibrated, Train: c.train, Classes: &metrics.ClassRows{}}
	if im := c.train.Image; im != nil && min(im.Height, im.Width) >= metrics.DefaultSSIM().Window {
		ev.Options.Distance, ev.Options.SetDistance = metrics.ImageDissimilarity(im.Height, im.Width), metrics.ImageSetDissimilarity(im.Height, im.Width)
	}
	c.evaluator = ev
	return ev, nil
}

// classSamples returns, for each target, the unfaithfulness metric's SGLD samples of that class (standardised
// inputs), drawing the classes not drawn before (see Custom).
func (c *Custom) classSamples(ctx context.Context, targets []int) ([][]float32, error) {
	var missing []int
	for _, t := range targets {
		if _, ok := c.samples[t]; !ok && !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		so, err := c.paper.SampleOptions(c.train, false)
		if err != nil {
			return nil, err
		}
		so.Graphs = c.graphs
		slices.Sort(missing)
		names := make([]string, len(missing))
		for i, t := range missing {
			names[i] = c.Table.Data.ClassNames[t]
		}
		c.logf("sampling the model's classes for the unfaithfulness metric (%s: %d chains of %d steps each)", strings.Join(names, ", "), so.Chains, so.SGLD.Steps)
		// Every class its own seed, all of them in one batched run: a class's samples are the same whichever
		// other classes are drawn with it.
		seeds := make([]uint64, len(missing))
		for i, t := range missing {
			seeds[i] = SeedFor(c.opts.Seed, "custom", "metrics-samples", strconv.Itoa(t))
		}
		per, err := energy.SampleClasses(ctx, c.backend, c.scaled, missing, so, seeds)
		if err != nil {
			return nil, fmt.Errorf("sampling classes %s for the unfaithfulness metric: %w", strings.Join(names, ", "), err)
		}
		for i, t := range missing {
			c.samples[t] = per[i].X
		}
	}
	out := make([][]float32, len(targets))
	for i, t := range targets {
		out[i] = c.samples[t]
	}
	return out, nil
}

// CustomExplanation is one generator's counterfactuals of some data rows, in the data's units.
type CustomExplanation struct {
	// Generator is "" for counterfactuals scored by Custom.Score.
	Generator string
	Rows      []int
	Targets   []int
	// Factuals and Counterfactuals hold the rows' model inputs in the data's units (len(Rows)·D values).
	Factuals, Counterfactuals []float32
	// Predicted is the model's class of each counterfactual and Probability its probability.
	Predicted   []int
	Probability []float32
	// Iterations are the search's steps (nil for Score).
	Iterations []int
	// Scores are the paper's metrics of each counterfactual (Valid: p(target) ≥ 0.5).
	Scores []metrics.Scores
	// Violations lists the schema's constraints each counterfactual breaks (data.Schema.Violations).
	Violations [][]data.Violation
}

// Explain searches a counterfactual of every given data row (0-based) with each generator, towards target
// (a class index, or −1 for "other": see Targets), each generator's rows in one batched search.
func (c *Custom) Explain(ctx context.Context, rows []int, target int, gens ...Generator) ([]*CustomExplanation, error) {
	if err := CheckGenerators(gens); err != nil {
		return nil, err
	}
	targets, err := c.Targets(rows, target)
	if err != nil {
		return nil, err
	}
	in, err := c.ingredients(ctx, gens)
	if err != nil {
		return nil, err
	}
	x, _ := c.rows(rows)
	xs := slices.Clone(x)
	c.std.TransformRows(xs)
	var out []*CustomExplanation
	for _, g := range gens {
		base, _ := g.paper()
		p, err := g.Params(c.params)
		if err != nil {
			return nil, err
		}
		var gen *counterfactual.Generator
		if g.Build != nil {
			gen, err = g.Build(in, p)
		} else {
			gen, err = catalogue.ByName(base, p, in)
		}
		if err != nil {
			return nil, fmt.Errorf("generator %s: %w", g.Name, err)
		}
		gen.Name = g.Name
		c.logf("searching %d counterfactuals with %s", len(rows), g.Name)
		res, err := counterfactual.Search(ctx, c.backend, c.scaled, gen, counterfactual.Request{
			Factuals: xs, Targets: targets, Lower: c.slo, Upper: c.shi, Mutability: c.mut, OneHot: c.groups,
			MaxIterations: c.opts.MaxIterations, Rule: c.rule(), Seed: SeedFor(c.opts.Seed, "custom", "search", g.Name),
		})
		if err != nil {
			return nil, fmt.Errorf("explaining with %s: %w", g.Name, err)
		}
		cf := slices.Clone(res.X)
		c.std.InverseRows(cf)
		x, err := c.finish(ctx, g.Name, rows, targets, x, cf)
		if err != nil {
			return nil, err
		}
		x.Iterations = res.Iterations
		out = append(out, x)
	}
	return out, nil
}

// Score computes the metrics and constraint violations of counterfactuals made by any tool: cf holds one
// row of model inputs per entry of rows (in the data's units, as data.ReadRows reads them), each the
// counterfactual of that data row, towards target (as in Explain). The counterfactuals are scored as they
// are: nothing is rounded or clamped.
func (c *Custom) Score(ctx context.Context, rows []int, cf []float32, target int) (*CustomExplanation, error) {
	d := c.Table.Schema.Width()
	if len(cf) != len(rows)*d {
		return nil, fmt.Errorf("%w: %d counterfactual values for %d rows of %d inputs", ErrInvalid, len(cf), len(rows), d)
	}
	targets, err := c.Targets(rows, target)
	if err != nil {
		return nil, err
	}
	x, _ := c.rows(rows)
	return c.score(ctx, "", rows, targets, x, slices.Clone(cf))
}

// ScoreTargets is Score with each counterfactual's own target class (such as the "target" column that
// WriteCustomCSV writes): an error wrapping ErrInvalid for a class that does not exist or that the
// counterfactual's factual is already predicted as.
func (c *Custom) ScoreTargets(ctx context.Context, rows []int, cf []float32, targets []int) (*CustomExplanation, error) {
	d := c.Table.Schema.Width()
	if len(cf) != len(rows)*d || len(targets) != len(rows) {
		return nil, fmt.Errorf("%w: %d counterfactual values and %d targets for %d rows of %d inputs", ErrInvalid, len(cf), len(targets), len(rows), d)
	}
	pred, err := c.Predicted(rows)
	if err != nil {
		return nil, err
	}
	classes := c.Table.Data.ClassNames
	for i, t := range targets {
		if t < 0 || t >= len(classes) {
			return nil, fmt.Errorf("%w: counterfactual %d: target class %d; the classes are 0 … %d (%s)", ErrInvalid, i, t, len(classes)-1, strings.Join(classes, ", "))
		}
		if pred[i] == t {
			return nil, fmt.Errorf("%w: counterfactual %d: its factual, %s, is already predicted as its target %q", ErrInvalid, i, c.Table.LineOf(rows[i]), classes[t])
		}
	}
	x, _ := c.rows(rows)
	return c.score(ctx, "", rows, slices.Clone(targets), x, slices.Clone(cf))
}

// Predicted returns the model's class of each given data row.
func (c *Custom) Predicted(rows []int) ([]int, error) {
	x, err := c.rows(rows)
	if err != nil {
		return nil, err
	}
	prob, err := models.Probabilities(c.backend, c.Model, x)
	if err != nil {
		return nil, err
	}
	k := c.Table.Data.K()
	out := make([]int, len(rows))
	for i := range rows {
		out[i] = argmax(prob[i*k:(i+1)*k], -1)
	}
	return out, nil
}

// finish rounds ordinal inputs to a level, clamps every value to the bounds and the mutability
// constraints in the data's units (undoing the standardisation's rounding), and scores the result.
func (c *Custom) finish(ctx context.Context, name string, rows, targets []int, x, cf []float32) (*CustomExplanation, error) {
	d := c.Table.Schema.Width()
	for i := range rows {
		row, f := cf[i*d:(i+1)*d], x[i*d:(i+1)*d]
		for _, j := range c.ordinal {
			row[j] = float32(math.Round(float64(row[j])))
		}
		for j := range row {
			lo, hi := c.lo[j], c.hi[j]
			switch c.mut[j] {
			case counterfactual.None:
				lo, hi = f[j], f[j]
			case counterfactual.Increase:
				lo = max(lo, f[j])
			case counterfactual.Decrease:
				hi = min(hi, f[j])
			}
			if lo <= hi {
				row[j] = min(max(row[j], lo), hi)
			} else {
				row[j] = f[j] // a factual outside the bounds in a blocked direction keeps its value
			}
		}
	}
	return c.score(ctx, name, rows, targets, x, cf)
}

func (c *Custom) score(ctx context.Context, name string, rows, targets []int, x, cf []float32) (*CustomExplanation, error) {
	d, k := c.Table.Schema.Width(), c.Table.Data.K()
	prob, err := models.Probabilities(c.backend, c.Model, cf)
	if err != nil {
		return nil, err
	}
	if bad := nonFinite(prob, k); len(bad) > 0 {
		var which []string
		for _, i := range bad {
			which = append(which, c.Table.LineOf(rows[i]))
		}
		what := "counterfactual"
		if name != "" {
			what = name + "'s counterfactual"
		}
		return nil, fmt.Errorf("%w: the model's output is not a finite number (NaN or ±Inf) at the %s of the data's %s; nothing is scored",
			ErrInvalid, what, strings.Join(which, ", "))
	}
	out := &CustomExplanation{Generator: name, Rows: rows, Targets: targets, Factuals: x, Counterfactuals: cf,
		Predicted: make([]int, len(rows)), Probability: make([]float32, len(rows)), Violations: make([][]data.Violation, len(rows))}
	for i := range rows {
		p := prob[i*k : (i+1)*k]
		out.Predicted[i] = argmax(p, -1)
		out.Probability[i] = p[out.Predicted[i]]
		out.Violations[i] = c.Table.Schema.Violations(x[i*d:(i+1)*d], cf[i*d:(i+1)*d], c.lo, c.hi, 0)
	}
	ev, err := c.Evaluator(ctx)
	if err != nil {
		return nil, err
	}
	xs, cfs := slices.Clone(x), slices.Clone(cf)
	c.std.TransformRows(xs)
	c.std.TransformRows(cfs)
	rs, err := c.classSamples(ctx, targets)
	if err != nil {
		return nil, err
	}
	if out.Scores, err = ev.EvaluateEach(xs, cfs, targets, rs); err != nil {
		return nil, fmt.Errorf("scoring the counterfactuals: %w", err)
	}
	// Validity and p(target) of the rows as they are reported (the data's units), not of their
	// standardised float32 images, which differ where a column's scale dwarfs its values.
	for i, t := range targets {
		out.Scores[i].Probability = float64(prob[i*k+t])
		out.Scores[i].Valid = out.Scores[i].Probability >= metrics.DefaultThreshold
	}
	return out, nil
}

// CustomColumns are the columns WriteCSV writes after the schema's features.
var CustomColumns = []string{"target", "predicted", "probability", "valid", "unfaithfulness", "implausibility",
	"uncertainty", "cost", "redundancy", "target_probability", "iterations", "violations"}

// WriteCustomCSV writes explanations, one counterfactual a line: "generator", "row" (the factual's data row),
// the schema's features in the CSV's own columns and units (categories and levels by name), then
// CustomColumns: the target and predicted classes by name, the predicted class's probability, validity,
// the paper's six metrics (cost and the distances in the standardised space of the search), the
// iterations and the violated constraints ("" when none). data.ReadRows reads the file back.
func WriteCustomCSV(w io.Writer, s *data.Schema, classes []string, xs ...*CustomExplanation) error {
	cw := csv.NewWriter(w)
	header := []string{"generator", data.RowColumn}
	for _, f := range s.Features {
		header = append(header, f.Name)
	}
	if err := cw.Write(append(header, CustomColumns...)); err != nil {
		return err
	}
	d := s.Width()
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, x := range xs {
		for i, r := range x.Rows {
			rec := []string{x.Generator, strconv.Itoa(r)}
			rec = append(rec, s.DecodeRow(x.Counterfactuals[i*d:(i+1)*d])...)
			sc := x.Scores[i]
			it := ""
			if x.Iterations != nil {
				it = strconv.Itoa(x.Iterations[i])
			}
			var v []string
			for _, vi := range x.Violations[i] {
				v = append(v, vi.String())
			}
			rec = append(rec, classes[x.Targets[i]], classes[x.Predicted[i]], num(float64(x.Probability[i])),
				strconv.FormatBool(sc.Valid), num(sc.Unfaithfulness), num(sc.Implausibility), num(sc.Uncertainty),
				num(sc.Cost), num(sc.Redundancy), num(sc.Probability), it, strings.Join(v, "; "))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// OpenCustomFiles reads a schema, a CSV and an ONNX model (models.FromONNX) and opens them (OpenCustom).
// Without o.Backend, an image schema runs on backend.Images' choice (XLA's CPU plugin where eccco is built
// with -tags xla and the plugin is installed, else the default backend; o.Logf hears which and why), any
// other schema on the default backend (backend.New).
func OpenCustomFiles(modelPath, dataPath, schemaPath string, o CustomOptions) (*Custom, error) {
	s, err := data.ReadSchema(schemaPath)
	if err != nil {
		return nil, err
	}
	tb, err := data.ReadTable(dataPath, s)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Backend != nil:
	case s.Image != nil: // XLA's CPU plugin where it is built in and installed (backend.Images), as for the paper's images
		var line string
		if o.Backend, line, err = backend.Images(); err != nil {
			return nil, err
		}
		if o.Logf != nil {
			o.Logf("%s", line)
		}
	default:
		if o.Backend, err = backend.New(); err != nil {
			return nil, err
		}
	}
	clf, err := models.FromONNX(o.Backend, modelPath)
	if err != nil {
		return nil, err
	}
	if o.Logf != nil {
		for _, n := range clf.Notes() {
			o.Logf("%s: %s", modelPath, n)
		}
	}
	return OpenCustom(tb, clf, o)
}

// ParseTarget reads a target class: its name in the data, its index, or "other" (−1: see Targets).
func (c *Custom) ParseTarget(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "other") {
		return -1, nil
	}
	classes := c.Table.Data.ClassNames
	if i := slices.Index(classes, s); i >= 0 {
		return i, nil
	}
	if i, err := strconv.Atoi(s); err == nil && i >= 0 && i < len(classes) {
		return i, nil
	}
	return 0, fmt.Errorf("%w: target %q is not a class (%s), a class index or \"other\"", ErrInvalid, s, strings.Join(classes, ", "))
}

// CustomSummaryTable is a plain-text table of explanations: per generator, the counterfactuals, the
// share valid, the means of the six metrics over them and the number of constraint violations.
func CustomSummaryTable(xs []*CustomExplanation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %4s %6s %8s %8s %8s %8s %8s %6s\n", "generator", "n", "valid", "unfaith", "implaus", "uncert", "cost", "redund", "viol")
	for _, x := range xs {
		var sum [5]float64
		valid, viol := 0, 0
		for i, s := range x.Scores {
			if s.Valid {
				valid++
			}
			viol += len(x.Violations[i])
			for j, v := range []float64{s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy} {
				sum[j] += v
			}
		}
		n := float64(len(x.Scores))
		name := x.Generator
		if name == "" {
			name = "(scored)"
		}
		fmt.Fprintf(&b, "%-18s %4d %5.0f%% %8.3f %8.3f %8.3f %8.3f %8.3f %6d\n", name, len(x.Scores), 100*float64(valid)/n,
			sum[0]/n, sum[1]/n, sum[2]/n, sum[3]/n, sum[4]/n, viol)
	}
	return b.String()
}

// rule is the search's convergence rule (CustomOptions.Stop).
func (c *Custom) rule() counterfactual.Rule {
	if c.opts.Stop != nil {
		return *c.opts.Stop
	}
	return counterfactual.GeneratorConditions
}

// MaxIterations is the searches' step limit.
func (c *Custom) MaxIterations() int {
	if c.opts.MaxIterations > 0 {
		return c.opts.MaxIterations
	}
	return counterfactual.DefaultMaxIterations
}

// farFromTarget is the p(target) below which CustomUnreached calls a row that stopped at the step limit
// still far from its target (no progress that more steps would extend).
const farFromTarget = 0.05

// CustomUnreached says which counterfactuals do not reach their target (not valid: p(target) < 0.5),
// naming their CSV lines, and what to raise: "" when all do. maxIter is the searches' step limit. Rows that
// stopped there still below farFromTarget, by a generator with an energy term, are said to be held back by
// that term (lower --set energy), since more steps do not help them.
func CustomUnreached(t *data.Table, maxIter int, xs []*CustomExplanation) string {
	var b strings.Builder
	capped := false
	var held []string // generators with an energy term that left rows far from their target at the limit
	for _, x := range xs {
		var lines []string
		far := 0
		for i, s := range x.Scores {
			if s.Valid {
				continue
			}
			it := ""
			if x.Iterations != nil {
				it = fmt.Sprintf(" after %d steps", x.Iterations[i])
				capped = capped || x.Iterations[i] >= maxIter
				if x.Iterations[i] >= maxIter && s.Probability < farFromTarget {
					far++
				}
			}
			lines = append(lines, fmt.Sprintf("  %s: p(%s) = %.3f%s\n", t.LineOf(x.Rows[i]), t.Data.ClassNames[x.Targets[i]], s.Probability, it))
		}
		if len(lines) == 0 {
			continue
		}
		name := x.Generator
		if name == "" {
			name = "(scored)"
		}
		fmt.Fprintf(&b, "%s: %d of %d did not reach the target class (p(target) < 0.5):\n%s", name, len(lines), len(x.Scores), strings.Join(lines, ""))
		if g, err := catalogue.LookupGenerator(x.Generator); err == nil && far > 0 && g.Reads("energy") {
			held = append(held, fmt.Sprintf("%s (%d)", x.Generator, far))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	if len(held) > 0 {
		fmt.Fprintf(&b, "Rows still at p(target) < %.2f at the step limit, by a generator with an energy term: %s; more steps rarely move those. The energy term, which pulls a counterfactual towards the target class's samples, can outweigh the model's loss there: lowering it (--set energy=…, to a tenth, say) trades plausibility for validity\n", farFromTarget, strings.Join(held, ", "))
	}
	if capped {
		fmt.Fprintf(&b, "Those that took %d steps stopped at the step limit: raise it (--set max-iter=%d) or the step size (--set step=…), or choose a target the model reaches more easily (--target)\n", maxIter, 4*maxIter)
	} else {
		fmt.Fprintf(&b, "They reached the target in the search, but rounding ordinal values to a level and clamping to the schema's bounds took them back: search on past the target (--set stop=max-iter, with --set max-iter=…), or lower the generator's penalties (--set cost=…)\n")
	}
	return b.String()
}
