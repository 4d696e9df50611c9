package experiment

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
)

// SeedFor derives a seed from the experiment's seed and names, so that every piece of randomness is
// fixed by (seed, what it is for) and independent of the order in which work is done: factuals are
// SeedFor(seed, DATA, "factuals", RUN), targets SeedFor(seed, DATA, KIND, "targets", RUN), the
// generators' ingredients SeedFor(seed, DATA, KIND, "ingredients", RUN), the unfaithfulness samples
// SeedFor(seed, DATA, KIND, "unfaithfulness", RUN) and the noise of a stochastic search (REVISE's
// resampled latent codes in the authors'-code mode) SeedFor(seed, DATA, KIND, "search", GENERATOR, RUN).
func SeedFor(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d", seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// Factuals are the rows a run explains and the target class of each.
type Factuals struct {
	// Rows are indices into the test split, or into the training split when Train is set.
	Rows []int
	// Train reports that Rows index the training split: the factuals of the authors'-code mode
	// (Settings.FactualsFromTraining).
	Train bool
	// X holds the rows' features, row-major.
	X []float32
	// Predicted is the model's class for each row; Targets a class other than it.
	Predicted, Targets []int
}

// N is the number of factuals.
func (f *Factuals) N() int { return len(f.Rows) }

// Factuals draws the factuals and targets of run r (1-based) of a model: n test rows in the order of a
// permutation seeded by (seed, data set, run), each with a target drawn uniformly among the classes the
// model does not predict for it (seeded by (seed, data set, kind, run)). These are the benchmark's: for
// the same seed, the first n factuals of run r are the same in `eccco explain` and `eccco bench`. n
// larger than the test split takes all of it.
//
// In the authors'-code mode the factuals are drawn as CE.jl's benchmark drew them instead
// (Settings.FactualsFromTraining): n factual labels, each with a target among the other classes, drawn once
// for every run and model (seeded by (seed, data set, n)); then for each run and model, factual i is a
// training row drawn uniformly (with replacement) among those the model predicts as label i (seeded by
// (seed, data set, kind, run)). Where a mix of targets is set (Settings.TargetMix: the authors' for German
// Credit, circles, linearly separable), the labels are that mix in a seeded order instead.
func (e *Experiment) Factuals(ctx context.Context, kind models.Kind, run, n int) (*Factuals, error) {
	if run < 1 || n < 1 {
		return nil, fmt.Errorf("%w: run %d with %d factuals (both must be at least 1)", ErrInvalid, run, n)
	}
	if e.settings.FactualsFromTraining {
		return e.trainingFactuals(ctx, kind, run, n)
	}
	test := e.split.Test
	rng := data.NewRand(SeedFor(e.opts.Seed, e.dataset, "factuals", fmt.Sprint(run)))
	return e.factualRows(ctx, kind, run, rng.Perm(test.N())[:min(n, test.N())], -1)
}

// trainingFactuals draws the factuals of the authors' benchmark: CE.jl's benchmark ran without test_data,
// so it drew from the training split (src/evaluation/benchmark.jl:219); the factual labels and targets are
// drawn once, before the runs (l.225-234), and each factual is a random row predicted as its label, drawn
// per run and model (l.258, 272-277).
func (e *Experiment) trainingFactuals(ctx context.Context, kind models.Kind, run, n int) (*Factuals, error) {
	m, err := e.Model(ctx, kind)
	if err != nil {
		return nil, err
	}
	train := e.split.Train
	k := train.K()
	pred, err := models.KeptPredict(e.graphs, e.backend, m, train.X)
	if err != nil {
		return nil, fmt.Errorf("predicting the training rows of %s %s: %w", e.dataset, kind, err)
	}
	byLabel := make([][]int, k)
	for i, p := range pred {
		byLabel[p] = append(byLabel[p], i)
	}
	lrng := data.NewRand(SeedFor(e.opts.Seed, e.dataset, "factual labels", fmt.Sprint(n)))
	rng := data.NewRand(SeedFor(e.opts.Seed, e.dataset, string(kind), "factuals", fmt.Sprint(run)))
	labels, targets := make([]int, n), make([]int, n)
	if mix := e.settings.TargetMix; !mix.IsZero() {
		// The mix (Settings.TargetMix): exactly its share of targets of mix.Class, in an order drawn once
		// for all runs.
		if k != 2 || mix.Class < 0 || mix.Class > 1 || mix.Of < 1 || mix.Count < 0 || mix.Count > mix.Of {
			return nil, fmt.Errorf("%w: target mix %+v for %s with %d classes (a mix needs two classes and 0 ≤ Count ≤ Of)", ErrInvalid, mix, e.dataset, k)
		}
		c := mix.Targets(n)
		for i := range n {
			targets[i] = mix.Class
			if i >= c {
				targets[i] = 1 - mix.Class
			}
			labels[i] = 1 - targets[i]
		}
		lrng.Shuffle(n, func(i, j int) {
			labels[i], labels[j] = labels[j], labels[i]
			targets[i], targets[j] = targets[j], targets[i]
		})
	} else {
		for i := range n {
			labels[i] = lrng.IntN(k)
			targets[i] = lrng.IntN(k - 1)
			if targets[i] >= labels[i] {
				targets[i]++
			}
		}
	}
	f := &Factuals{Train: true}
	for i := range n {
		label, target := labels[i], targets[i]
		rows := byLabel[label]
		if len(rows) == 0 {
			return nil, fmt.Errorf("the %s %s predicts no training row as class %d, so no factual of that class can be drawn (the authors' benchmark fails here too)", e.dataset, kind, label)
		}
		r := rows[rng.IntN(len(rows))]
		f.Rows = append(f.Rows, r)
		f.X = append(f.X, train.Row(r)...)
		f.Predicted = append(f.Predicted, label)
		f.Targets = append(f.Targets, target)
	}
	return f, nil
}

// FactualRows is Factuals for chosen test rows: targets are drawn as for run r, or all set to target when
// it is not negative (it must then differ from the class the model predicts for every row).
func (e *Experiment) FactualRows(ctx context.Context, kind models.Kind, run int, rows []int, target int) (*Factuals, error) {
	if run < 1 || len(rows) == 0 {
		return nil, fmt.Errorf("%w: run %d with %d rows", ErrInvalid, run, len(rows))
	}
	for _, r := range rows {
		if r < 0 || r >= e.split.Test.N() {
			return nil, fmt.Errorf("%w: test row %d is outside the %d test rows of %s", ErrInvalid, r, e.split.Test.N(), e.dataset)
		}
	}
	if target >= e.split.Test.K() {
		return nil, fmt.Errorf("%w: target %d is not a class of %s (0 … %d)", ErrInvalid, target, e.dataset, e.split.Test.K()-1)
	}
	return e.factualRows(ctx, kind, run, rows, target)
}

func (e *Experiment) factualRows(ctx context.Context, kind models.Kind, run int, rows []int, target int) (*Factuals, error) {
	m, err := e.Model(ctx, kind)
	if err != nil {
		return nil, err
	}
	test := e.split.Test
	f := &Factuals{Rows: slices.Clone(rows)}
	for _, r := range rows {
		f.X = append(f.X, test.Row(r)...)
	}
	if f.Predicted, err = models.KeptPredict(e.graphs, e.backend, m, f.X); err != nil {
		return nil, fmt.Errorf("predicting the factuals of %s %s: %w", e.dataset, kind, err)
	}
	trng := data.NewRand(SeedFor(e.opts.Seed, e.dataset, string(kind), "targets", fmt.Sprint(run)))
	for i, p := range f.Predicted {
		t := trng.IntN(test.K() - 1)
		if t >= p {
			t++
		}
		if target >= 0 {
			if target == p {
				return nil, fmt.Errorf("%w: the %s already predicts class %d for test row %d; choose another target", ErrInvalid, kind, target, rows[i])
			}
			t = target
		}
		f.Targets = append(f.Targets, t)
	}
	return f, nil
}

// Run is one run of one model, prepared for its generators: the factuals and targets, the generators'
// ingredients (conformal calibration, PCA, VAE, SGLD samples) and the metrics' evaluator. It is what the
// benchmark computes once per (model, run) and shares among that run's generators.
type Run struct {
	Experiment *Experiment
	Kind       models.Kind
	// Index is the run's number, from 1.
	Index    int
	Model    *models.Model
	Factuals *Factuals
	// Ingredients are what the generators need, in the experiment's mode.
	Ingredients counterfactual.Ingredients
	// MaxIterations bounds each search (0: counterfactual.DefaultMaxIterations); RecordPath keeps the
	// search paths in each Explanation's Result (for figures).
	MaxIterations int
	RecordPath    bool
	// Stop, when set, is the search's convergence rule instead of the mode's (its stop-on-all-conditions switch).
	Stop *counterfactual.Rule
	// OwnSamples are, in the authors'-code mode, every sample of the ECCCo-L1 family's own sampler (10
	// per class, lowest energy first; Ingredients.Samples holds the lowest one, which its penalty pulled
	// towards), against which that family's unfaithfulness is measured
	// (Settings.UnfaithfulnessAgainstOwnSamples). nil otherwise, and with PerCounterfactual sampling, where
	// each factual has 10 of its own (Ingredients.Samples then holds each row's lowest, PerRow).
	OwnSamples *energy.TargetSamples
	// SkipMetrics makes Explain return the counterfactuals unscored (Explanation.Scores nil), so that the
	// unfaithfulness samples are never drawn: for figures, which show counterfactuals, not metrics.
	SkipMetrics bool

	evaluator  *metrics.Evaluator
	each       [][]float32 // per-factual unfaithfulness samples (PerCounterfactual), drawn on first use
	ownEach    [][]float32 // per-factual samples of the ECCCo-L1 family's own sampler (PerCounterfactual)
	sampleOpts energy.ClassOptions
	sampleSeed uint64
}

// Samples are the model's conditional SGLD samples of every class behind the unfaithfulness metric
// (seeded by the run; the sampler of the experiment's mode), drawn on first use.
func (r *Run) Samples(ctx context.Context) (*energy.TargetSamples, error) {
	ev, err := r.Evaluator(ctx)
	if err != nil {
		return nil, err
	}
	return ev.Samples, nil
}

// Evaluator scores counterfactuals of the run with the six metrics; its Samples are an independent SGLD
// draw, made on first use.
func (r *Run) Evaluator(ctx context.Context) (*metrics.Evaluator, error) {
	if r.evaluator.Samples == nil {
		e := r.Experiment
		ts, err := energy.SampleTargets(ctx, e.backend, r.Model, r.sampleOpts, r.sampleSeed)
		if err != nil {
			return nil, fmt.Errorf("sampling for the unfaithfulness of the %s %s: %w", e.dataset, r.Kind, err)
		}
		r.evaluator.Samples = ts
	}
	return r.evaluator, nil
}

// perFactualSamples draws, on first use, a set of unfaithfulness samples of its own for every factual of
// the run (towards its target), shared by the generators that explain it (PerCounterfactual).
func (r *Run) perFactualSamples(ctx context.Context) ([][]float32, error) {
	if r.each == nil {
		e := r.Experiment
		each, err := energy.SampleEach(ctx, e.backend, r.Model, r.Factuals.Targets, r.sampleOpts, SeedFor(r.sampleSeed, "per-counterfactual"))
		if err != nil {
			return nil, fmt.Errorf("sampling per counterfactual for the unfaithfulness of the %s %s: %w", e.dataset, r.Kind, err)
		}
		r.each = each
	}
	return r.each, nil
}

type runKey struct {
	kind     models.Kind
	run, n   int
	needs    string
	factuals string
}

// RunRequest names a run to prepare (Experiment.Run): a model, a run number, the generators to prepare
// it for and its factuals.
type RunRequest struct {
	Kind models.Kind
	// Run is the run's number, from 1.
	Run int
	// Generators are those the run is prepared for: it prepares only what they need.
	Generators []Generator
	// The factuals are the first of these that is set: Factuals as given (from Experiment.Factuals or
	// FactualRows); One, a single factual: the first test row labelled One.From that the model also
	// predicts as that class (TestRowsOf), with target One.To; else N
	// factuals of the run drawn as the benchmark draws them (Experiment.Factuals).
	Factuals *Factuals
	One      *Transition
	N        int
}

// Transition is a single factual's change of class, from its label From to the target To
// (RunRequest.One): the paper's single-factual figures and the notebooks explain one.
type Transition struct{ From, To int }

// Run prepares the run a request names for its generators. Preparing the same run again returns the
// cached one.
func (e *Experiment) Run(ctx context.Context, req RunRequest) (*Run, error) {
	gens, kind, run := req.Generators, req.Kind, req.Run
	if err := CheckGenerators(gens); err != nil {
		return nil, err
	}
	f := req.Factuals
	if f == nil {
		var err error
		if req.One != nil {
			f, err = e.oneFactual(ctx, kind, run, *req.One)
		} else {
			f, err = e.Factuals(ctx, kind, run, req.N)
		}
		if err != nil {
			return nil, err
		}
	}
	if run < 1 || f == nil || f.N() == 0 {
		return nil, fmt.Errorf("%w: run %d needs factuals", ErrInvalid, run)
	}
	needs, err := paperNeeds(gens)
	if err != nil {
		return nil, err
	}
	key := runKey{kind: kind, run: run, n: f.N(), needs: fmt.Sprint(needs), factuals: fmt.Sprint(f.Rows, f.Targets)}
	if r, ok := e.runs[key]; ok {
		return r, nil
	}
	m, err := e.Model(ctx, kind)
	if err != nil {
		return nil, err
	}
	r := &Run{Experiment: e, Kind: kind, Index: run, Model: m, Factuals: f}
	if err := e.prepare(ctx, r, needs); err != nil {
		return nil, err
	}
	clear(e.runs) // keep one prepared run: a benchmark walks through many
	e.runs[key] = r
	return r, nil
}

// prepare gives run r what its generators (needs: their canonical names, paperNeeds) need, in the
// experiment's mode: their ingredients (Run.Ingredients, and in the authors'-code mode the ECCCo-L1
// family's own samples) and the metrics' evaluator.
func (e *Experiment) prepare(ctx context.Context, r *Run, needs []string) error {
	kind, run, m, train := r.Kind, r.Index, r.Model, e.split.Train
	// What the preparation prepares: ECCCo+'s PCA is fitted once per experiment, REVISE's VAE loaded or
	// trained once (Experiment.VAE), and in the authors'-code mode the ECCCo-L1 family's samples come from
	// its own sampler (below); the calibration is always prepared.
	settings := e.settings
	l1Opts, l1Own, err := settings.l1SampleOptions(train)
	if err != nil {
		return err
	}
	l1Opts.Graphs = e.graphs
	ingredientSeed := e.ingredientSeed(kind, run)
	cal, err := e.calibrationRows(kind, run)
	if err != nil {
		return err
	}
	in, needL1, err := e.prep.ingredients(ctx, m, needs, ingredientSeed,
		counterfactual.IngredientOptions{Calibration: cal, CalibrationScores: e.authorsScores(kind)}, l1Own)
	if err != nil {
		return fmt.Errorf("preparing run %d of the %s %s: %w", run, e.dataset, kind, err)
	}
	in = settings.ingredients(in)
	if needL1 {
		if in.Samples, err = e.ownL1Samples(ctx, r, l1Opts, ingredientSeed); err != nil {
			return err
		}
	}
	// The unfaithfulness samples, drawn on first use.
	opts, err := settings.sampleOptions(e.paper, train)
	if err != nil {
		return err
	}
	opts.Graphs = e.graphs
	r.Ingredients = in
	r.sampleOpts, r.sampleSeed = opts, SeedFor(e.opts.Seed, e.dataset, string(kind), "unfaithfulness", fmt.Sprint(run))
	r.evaluator = &metrics.Evaluator{Backend: e.backend, Model: m, Calibrated: in.Calibrated, Train: train,
		Options: settings.metricsOptions(train), Graphs: e.graphs, Classes: e.classes}
	return nil
}

// ownL1Samples draws, in the authors'-code mode, the ECCCo-L1 family's samples from its own sampler
// (l1Opts, seeded by ingredientSeed) and returns those its penalty pulls towards; r keeps every sample for the
// family's unfaithfulness (Run.OwnSamples, or each factual's own with PerCounterfactual sampling).
func (e *Experiment) ownL1Samples(ctx context.Context, r *Run, l1Opts energy.ClassOptions, ingredientSeed uint64) (*energy.TargetSamples, error) {
	kind, m, f := r.Kind, r.Model, r.Factuals
	if e.opts.Sampling == PerCounterfactual {
		// As the authors' code did, a sampler for every counterfactual (ECCCo.jl src/penalties.jl:93-134:
		// distance_from_energy caches one EnergySampler per counterfactual explanation): 10 chains towards
		// each factual's target, the penalty towards that row's lowest-energy sample, the metric against
		// its 10.
		each, err := energy.SampleEach(ctx, e.backend, m, f.Targets, l1Opts, SeedFor(ingredientSeed, "ECCCo-L1 per counterfactual"))
		if err != nil {
			return nil, fmt.Errorf("sampling per counterfactual for the ECCCo-L1 family of the %s %s: %w", e.dataset, kind, err)
		}
		rows := &energy.TargetSamples{Samples: each, D: m.NumFeatures(), Chains: l1Opts.Chains, PerRow: true}
		lowest, err := rows.Lowest(energy.AuthorsL1Lowest)
		if err != nil {
			return nil, err
		}
		r.ownEach = each
		return lowest, nil
	}
	// The authors' ECCCo-L1 penalty pulled towards the lowest-energy sample of its own 10 chains; the
	// metric reused all 10 (energy.AuthorsL1ClassOptions). Drawn once per class and run.
	var err error
	if r.OwnSamples, err = energy.SampleTargets(ctx, e.backend, m, l1Opts, ingredientSeed); err != nil {
		return nil, fmt.Errorf("sampling for the ECCCo-L1 family of the %s %s: %w", e.dataset, kind, err)
	}
	return r.OwnSamples.Lowest(energy.AuthorsL1Lowest)
}

// ingredientSeed seeds run r's ingredients of a model: its calibration half in the paper mode, ECCCo+'s
// and REVISE's helpers, the ECCCo-L1 family's own samples.
func (e *Experiment) ingredientSeed(kind models.Kind, run int) uint64 {
	return SeedFor(e.opts.Seed, e.dataset, string(kind), "ingredients", fmt.Sprint(run))
}

// calibrationRows returns the rows run r calibrates a model of the kind on: the mode's fixed calibration
// half (Settings.fitCalibration) in the authors'-code mode, the same for every run; in the paper mode a random
// half of the training split, seeded by the run (what counterfactual.PaperIngredients draws).
func (e *Experiment) calibrationRows(kind models.Kind, run int) (*data.Dataset, error) {
	train := e.split.Train
	_, cal, err := e.settings.fitCalibration(train)
	if err != nil || cal != nil {
		return cal, err
	}
	_, cal, err = conformal.SplitCalibration(train, counterfactual.PaperCalibrationFraction, e.ingredientSeed(kind, run))
	return cal, err
}

// Calibrated returns the conformally calibrated model of a kind exactly as run r's generators and
// uncertainty metric use it: q̂ from calibrationRows (one fixed half in the authors'-code mode, a seeded
// half per run in the paper mode) and the mode's switches (the authors' code: ConformalPrediction.jl's
// empty-set rule). The model must be saved already (SavedModel): it never trains.
func (e *Experiment) Calibrated(kind models.Kind, run int) (*conformal.Calibrated, error) {
	if run < 1 {
		return nil, fmt.Errorf("%w: run %d (runs count from 1)", ErrInvalid, run)
	}
	m, err := e.SavedModel(kind)
	if err != nil {
		return nil, err
	}
	var c *conformal.Calibrated
	if scores := e.authorsScores(kind); scores != nil {
		c, err = conformal.FromScores(m, scores, conformal.DefaultOptions())
	} else {
		cal, cerr := e.calibrationRows(kind, run)
		if cerr != nil {
			return nil, cerr
		}
		c, err = conformal.CalibrateKept(e.graphs, e.backend, m, cal, conformal.DefaultOptions())
	}
	if err != nil {
		return nil, fmt.Errorf("calibrating the %s %s: %w", e.dataset, kind, err)
	}
	return e.settings.ingredients(counterfactual.Ingredients{Calibrated: c}).Calibrated, nil
}

// FixedCalibration reports whether every run calibrates a model on the same rows (the authors'-code
// mode), so that Calibrated gives the same q̂ for every run.
func (e *Experiment) FixedCalibration() bool {
	_, cal, err := e.settings.fitCalibration(e.split.Train)
	return err == nil && cal != nil
}

// paperNeeds lists the canonical paper generators whose ingredients gens need, sorted.
func paperNeeds(gens []Generator) ([]string, error) {
	set := map[string]bool{}
	for _, g := range gens {
		p, err := g.paper()
		if err != nil {
			return nil, err
		}
		if p != "" {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for _, n := range catalogue.Strings() {
		if set[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// Generator builds a generator value for this run: the paper's constructor (or g.Build) with the data
// set's parameters, g's overrides, and the run's ingredients.
func (r *Run) Generator(g Generator) (*counterfactual.Generator, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	base, _ := g.paper()
	e := r.Experiment
	p, err := g.Params(e.settings.GeneratorParams(base, e.Params()))
	if err != nil {
		return nil, err
	}
	var gen *counterfactual.Generator
	if g.Build != nil {
		gen, err = g.Build(r.Ingredients, p)
	} else {
		gen, err = catalogue.ByName(base, p, r.Ingredients)
	}
	if err != nil {
		return nil, fmt.Errorf("generator %s: %w", g.Name, err)
	}
	if gen == nil {
		return nil, fmt.Errorf("%w: generator %s: Build returned no generator", ErrInvalid, g.Name)
	}
	gen.Name = g.Name
	return gen, gen.Validate()
}

// searcher returns the compiled search of a generator built for this run: the one kept by the experiment
// for the model and generator when its graphs read nothing that changed since (catalogue.GraphKey:
// on XLA a tabular model's run then compiles nothing new), a fresh one for a custom generator (g.Build),
// whose ingredients are unknown. done releases it.
func (r *Run) searcher(g Generator, gen *counterfactual.Generator) (*counterfactual.Searcher, func(), error) {
	e := r.Experiment
	build := func() (*counterfactual.Searcher, error) { return counterfactual.NewSearcher(e.backend, r.Model, gen) }
	graphs := e.graphs
	var key any
	if base, err := g.paper(); err == nil && g.Build == nil {
		p, err := g.Params(e.settings.GeneratorParams(base, e.Params()))
		if err != nil {
			return nil, nil, err
		}
		key = searcherKey{model: r.Model, generator: catalogue.GraphKey(base, p, r.Ingredients)}
	}
	if key == nil || !models.Comparable(key) {
		graphs = nil
	}
	return models.Kept(graphs, key, build, (*counterfactual.Searcher).Close)
}

// searcherKey names a kept Searcher: the model and what the generator's graphs bake in.
type searcherKey struct {
	model     *models.Model
	generator any
}

// Explanation is one generator's counterfactuals of a run's factuals, with their metrics.
type Explanation struct {
	Generator Generator
	Kind      models.Kind
	Run       int
	Factuals  *Factuals
	// Result holds the counterfactuals X, p(y⁺|x′), iterations, convergence (and paths if asked).
	Result *counterfactual.Result
	// Scores are the six metrics of each counterfactual.
	Scores []metrics.Scores
	// Search is the time the search took (metrics excluded); Sampling the time spent drawing SGLD samples
	// for unfaithfulness in this call (the run's shared draw on first use, or the per-counterfactual
	// draws); Scoring the time of the six metrics.
	Search, Sampling, Scoring time.Duration
}

// Explain searches counterfactuals of the run's factuals with a generator (all factuals in one batched
// search) and scores them.
func (r *Run) Explain(ctx context.Context, g Generator) (*Explanation, error) {
	gen, err := r.Generator(g)
	if err != nil {
		return nil, err
	}
	e := r.Experiment
	if r.MaxIterations < 0 {
		return nil, fmt.Errorf("%w: max iterations %d must not be negative", ErrInvalid, r.MaxIterations)
	}
	lo, hi := e.settings.searchBounds(e.split)
	start := clock.Now()
	searcher, done, err := r.searcher(g, gen)
	if err != nil {
		return nil, fmt.Errorf("explaining the %s %s with %s: %w", e.dataset, r.Kind, g.Name, err)
	}
	res, err := searcher.SearchWith(ctx, gen, counterfactual.Request{Factuals: r.Factuals.X,
		Targets: r.Factuals.Targets, Lower: lo, Upper: hi, MaxIterations: r.MaxIterations, RecordPath: r.RecordPath,
		Rule: r.rule(), Seed: SeedFor(e.opts.Seed, e.dataset, string(r.Kind), "search", g.Name, fmt.Sprint(r.Index))})
	done()
	if err != nil {
		return nil, fmt.Errorf("explaining the %s %s with %s: %w", e.dataset, r.Kind, g.Name, err)
	}
	elapsed := clock.Since(start)
	x := &Explanation{Generator: g, Kind: r.Kind, Run: r.Index, Factuals: r.Factuals, Result: res, Search: elapsed}
	if r.SkipMetrics {
		return x, nil
	}
	own := e.settings.unfaithfulnessAgainstOwnSamples(gen) && (r.OwnSamples != nil || r.ownEach != nil)
	var ev *metrics.Evaluator
	var each [][]float32
	start = clock.Now()
	if own && r.ownEach != nil {
		// Against each row's own 10 samples (drawn with the run); the run's shared draw is not needed.
		o := *r.evaluator
		o.Samples = nil
		o.Options = e.settings.ownSamplesMetrics(o.Options)
		ev, each, own = &o, r.ownEach, false
	} else if e.opts.Sampling == PerCounterfactual && !own {
		ev = r.evaluator
		if each, err = r.perFactualSamples(ctx); err != nil {
			return nil, err
		}
	} else if ev, err = r.Evaluator(ctx); err != nil {
		return nil, err
	}
	if own {
		o := *ev
		o.Samples = r.OwnSamples
		o.Options = e.settings.ownSamplesMetrics(o.Options)
		ev = &o
	}
	x.Sampling = clock.Since(start)
	start = clock.Now()
	if x.Scores, err = ev.EvaluateEach(r.Factuals.X, res.X, r.Factuals.Targets, each); err != nil {
		return nil, fmt.Errorf("scoring %s's counterfactuals: %w", g.Name, err)
	}
	x.Scoring = clock.Since(start)
	return x, nil
}

// Explain is the short way: n factuals of run 1 of a model, explained by each generator (all prepared
// once, each searched as one batch).
func (e *Experiment) Explain(ctx context.Context, kind models.Kind, n int, gens ...Generator) ([]*Explanation, error) {
	r, err := e.Run(ctx, RunRequest{Kind: kind, Run: 1, N: n, Generators: gens})
	if err != nil {
		return nil, err
	}
	out := make([]*Explanation, 0, len(gens))
	for _, g := range gens {
		x, err := r.Explain(ctx, g)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// rule is the search's convergence rule: Stop, or the mode's.
func (r *Run) rule() counterfactual.Rule {
	if r.Stop != nil {
		return *r.Stop
	}
	return r.Experiment.settings.searchRule()
}
