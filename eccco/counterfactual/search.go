package counterfactual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Defaults of the paper's search (appendix; the authors' final runs).
const (
	DefaultMaxIterations = 100  // at most 100 steps
	DefaultThreshold     = 0.5  // γ: p(y⁺|x′) ≥ 0.5 counts as valid
	DefaultGradientTol   = 0.01 // τ: every |∂objective/∂z| below it
)

// Rule selects when a row's search stops.
type Rule int

// Convergence rules.
const (
	// GeneratorConditions (the paper's default): p(y⁺|x′) ≥ γ and every |∂objective/∂z| < τ (the projected
	// gradient in feature space: components that bounds or mutability block count as zero). JSMA
	// generators, whose steps do not shrink with the gradient, use the threshold part alone.
	GeneratorConditions Rule = iota
	// DecisionThreshold stops as soon as p(y⁺|x′) ≥ γ.
	DecisionThreshold
	// MaxIterations never stops early.
	MaxIterations
	// GeneratorConditionsAll is GeneratorConditions for every generator, JSMA ones included: p(y⁺|x′) ≥ γ
	// and every |∂objective/∂x′| < τ. It is how the authors' runs stopped Schut: CE.jl's GreedyGenerator is
	// a GradientBasedGenerator with a JSMADescent optimiser (src/generators/gradient_based/generators.jl:39-41),
	// and converge_when = :generator_conditions (src/counterfactuals/convergence.jl:33-34) asks of it
	// threshold_reached and conditions_satisfied (gradient_based/utils.jl:61-70: all |∇| < τ after
	// mutability), with no exception for JSMA; otherwise it stops after MaxIterations steps. Its gradient
	// is Schut's objective, the cross-entropy, which shrinks only as p(y⁺|x′) → 1. For other generators it
	// is GeneratorConditions.
	GeneratorConditionsAll
)

// Request is a batch of factuals to explain, searched together.
type Request struct {
	// Factuals holds B rows of D features, row-major.
	Factuals []float32
	// Targets holds the B target classes y⁺.
	Targets []int
	// Lower and Upper bound every feature (D values each; nil: unbounded). x′ is clamped to them after
	// every step (the training data's range, data.Dataset.Bounds, is the paper's choice).
	Lower, Upper []float32
	// Mutability holds one constraint per feature (nil: all free).
	Mutability []Mutability
	// MaxIterations caps the steps (0: DefaultMaxIterations).
	MaxIterations int
	// Rule, Threshold γ (0: 0.5) and GradientTol τ (0: 0.01) decide convergence.
	Rule        Rule
	Threshold   float64
	GradientTol float64
	// RecordPath keeps every row's x′ at every step in Result.Paths.
	RecordPath bool
	// Seed seeds the noise of a stochastic search (a Resampled latent map); other searches ignore it. The
	// same seed and request give the same counterfactuals.
	Seed uint64
}

// Result holds the counterfactuals of a Request, row i for factual i.
type Result struct {
	// X holds the B counterfactuals x′, row-major.
	X []float32
	// Iterations is the number of steps each row took.
	Iterations []int
	// Converged tells whether the row met the convergence rule (false: it stopped at MaxIterations).
	Converged []bool
	// Probability is p(y⁺|x′) under the model.
	Probability []float32
	// Paths, when requested, holds for each row x′ at steps 0 … Iterations (Iterations+1 rows of D).
	Paths [][]float32
}

// Valid reports whether row i reached the decision threshold γ.
func (r *Result) Valid(i int, threshold float64) bool { return float64(r.Probability[i]) >= threshold }

func (r *Request) withDefaults() Request {
	q := *r
	if q.MaxIterations == 0 {
		q.MaxIterations = DefaultMaxIterations
	}
	if q.Threshold == 0 {
		q.Threshold = DefaultThreshold
	}
	if q.GradientTol == 0 {
		q.GradientTol = DefaultGradientTol
	}
	return q
}

func (r *Request) validate(clf models.Classifier) (b int, err error) {
	d, k := clf.NumFeatures(), clf.NumClasses()
	switch {
	case len(r.Factuals) == 0 || len(r.Factuals)%d != 0:
		return 0, fmt.Errorf("counterfactual: %d factual values are not whole rows of the model's %d features", len(r.Factuals), d)
	case len(r.Targets) != len(r.Factuals)/d:
		return 0, fmt.Errorf("counterfactual: %d targets for %d factuals", len(r.Targets), len(r.Factuals)/d)
	case (r.Lower == nil) != (r.Upper == nil):
		return 0, fmt.Errorf("counterfactual: set both Lower and Upper bounds, or neither")
	case r.Lower != nil && (len(r.Lower) != d || len(r.Upper) != d):
		return 0, fmt.Errorf("counterfactual: bounds have %d and %d values, want %d", len(r.Lower), len(r.Upper), d)
	case r.Mutability != nil && len(r.Mutability) != d:
		return 0, fmt.Errorf("counterfactual: %d mutability constraints for %d features", len(r.Mutability), d)
	case r.MaxIterations < 0:
		return 0, fmt.Errorf("counterfactual: MaxIterations = %d, must be non-negative", r.MaxIterations)
	case !(r.Threshold > 0 && r.Threshold < 1):
		return 0, fmt.Errorf("counterfactual: threshold γ = %v, must lie in (0, 1)", r.Threshold)
	case !(r.GradientTol > 0):
		return 0, fmt.Errorf("counterfactual: gradient tolerance τ = %v, must be positive", r.GradientTol)
	case r.Rule < GeneratorConditions || r.Rule > GeneratorConditionsAll:
		return 0, fmt.Errorf("counterfactual: unknown convergence rule %d", r.Rule)
	}
	for i, v := range r.Factuals {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0, fmt.Errorf("counterfactual: factual %d, feature %d is %v", i/d, i%d, v)
		}
	}
	for i, t := range r.Targets {
		if t < 0 || t >= k {
			return 0, fmt.Errorf("counterfactual: target %d of factual %d is not a class of the model (0 … %d)", t, i, k-1)
		}
	}
	for j := range r.Lower {
		if !(r.Lower[j] <= r.Upper[j]) {
			return 0, fmt.Errorf("counterfactual: feature %d has Lower %v > Upper %v", j, r.Lower[j], r.Upper[j])
		}
	}
	for j, m := range r.Mutability {
		if m < Both || m > Decrease {
			return 0, fmt.Errorf("counterfactual: feature %d has unknown mutability %d", j, m)
		}
	}
	return len(r.Targets), nil
}

// Search finds counterfactuals for all rows of req at once with generator g: one GoMLX graph call per step
// for the whole batch. Each row starts at its factual (its latent code under g.Latent), takes gradient
// steps (or JSMA steps) on its own objective, is clamped to the bounds and projected onto its mutability
// constraints after every step, and stops moving once it converges while the other rows go on.
//
// A target equal to the model's prediction for its factual, a wrong feature count, a NaN input, an
// unknown generator setting or a negative weight give an error before any search.
//
// Search builds and compiles its graphs for this one call; to search many requests with the same model
// and generator, build a Searcher once and call its Search method: the results are the same, bit for bit.
func Search(ctx context.Context, backend compute.Backend, clf models.Classifier, g *Generator, req Request) (*Result, error) {
	s, err := NewSearcher(backend, clf, g)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Search(ctx, req)
}

// maxSearcherGraphs bounds the compiled step graphs a Searcher keeps (one per batch size and request
// settings); the least recently used one is released beyond it.
const maxSearcherGraphs = 8

// Searcher searches counterfactuals of one classifier with one generator and keeps the compiled graphs
// of its search step (one per batch size, latent width and graph-relevant request settings: bounds and
// mutability of JSMA generators, rule, threshold and tolerance) and of the factuals' prediction, so that
// repeated searches skip building and compiling them. Its results are those of Search, bit for bit.
//
// The model's weights are read when each step runs, so a Searcher sees weights that change (training
// continued, a checkpoint restored into the same variables). The generator is copied by NewSearcher, but
// what its terms read while a graph is built (a calibrated classifier's q̂, SGLD samples, a latent map's
// parameters held as Go values) is fixed in the compiled graphs: build a new Searcher after changing them.
//
// A Searcher's methods may be called from several goroutines; its searches then run one at a time (build
// one Searcher per goroutine to search in parallel). Close releases the compiled graphs.
type Searcher struct {
	backend compute.Backend
	clf     models.Classifier
	g       Generator

	mu     sync.Mutex
	steps  map[string]*cachedExec
	logits *model.Exec
	uses   int
	// store holds the step graphs' Data inputs (State.Data), under the scope "data"; foreign is set while
	// they hold another generator's values than the Searcher's own (SearchWith).
	store     *model.Store
	foreign   bool
	dataNames map[int]map[string]bool // the Data inputs the built graphs read, by batch size
}

type cachedExec struct {
	exec    *model.Exec
	lastUse int
}

// NewSearcher prepares the search of clf's counterfactuals with generator g (a nil classifier or backend
// or an invalid generator give an error). Nothing is compiled until the first search.
func NewSearcher(backend compute.Backend, clf models.Classifier, g *Generator) (*Searcher, error) {
	if clf == nil || backend == nil {
		return nil, fmt.Errorf("counterfactual: nil classifier or backend")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	gc := *g
	gc.Penalties = slices.Clone(g.Penalties)
	if g.JSMA != nil {
		j := *g.JSMA
		gc.JSMA = &j
	}
	return &Searcher{backend: backend, clf: clf, g: gc, steps: map[string]*cachedExec{}, store: model.NewStore(),
		dataNames: map[int]map[string]bool{}}, nil
}

// Close releases the compiled graphs; the Searcher may still be used (it compiles them again).
func (s *Searcher) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, c := range s.steps {
		c.exec.Finalize()
		delete(s.steps, k)
	}
	if s.logits != nil {
		s.logits.Finalize()
		s.logits = nil
	}
}

// predict returns the arg-max class of each row of x, as models.Predict computes it (the same chunks of
// models.PredictionChunk rows, hence the same logits), with a graph kept by the Searcher.
func (s *Searcher) predict(x []float32) ([]int, error) {
	if s.logits == nil {
		clf := s.clf
		exec, err := model.NewExec(s.backend, model.NewStore(), func(_ *model.Scope, xb *Node) *Node { return clf.Logits(xb) })
		if err != nil {
			return nil, fmt.Errorf("building prediction graph: %w", err)
		}
		s.logits = exec
	}
	d, k := s.clf.NumFeatures(), s.clf.NumClasses()
	n := len(x) / d
	pred := make([]int, 0, n)
	for start := 0; start < n; start += models.PredictionChunk {
		end := min(start+models.PredictionChunk, n)
		t, err := s.logits.Call1(tensors.FromFlatDataAndDimensions(x[start*d:end*d], end-start, d))
		if err != nil {
			return nil, fmt.Errorf("evaluating rows %d–%d: %w", start, end-1, err)
		}
		logits := tensors.MustCopyFlatData[float32](t)
		t.MustFinalizeAll()
		if len(logits) != (end-start)*k {
			return nil, fmt.Errorf("the model gave %d logits for %d rows of %d classes", len(logits), end-start, k)
		}
		for i := range end - start {
			row := logits[i*k : (i+1)*k]
			best := 0
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			pred = append(pred, best)
		}
	}
	return pred, nil
}

// Search finds counterfactuals for all rows of req at once, as the function Search does, reusing the
// Searcher's compiled graphs.
func (s *Searcher) Search(ctx context.Context, req Request) (*Result, error) {
	return s.SearchWith(ctx, nil, req)
}

// SearchWith is Search with generator g in place of the Searcher's own, reusing the Searcher's compiled
// graphs: g must be built as the Searcher's generator was (the same constructor, parameters and
// ingredients: GraphKey says when two are) except for the values its terms read through State.Data, such
// as ECCCo-L1's SGLD samples of another run. Those are read from g (a build of its terms that is not
// compiled) and fed to the compiled graphs; their count and shapes must match. The results are those of
// Search with g, bit for bit. A nil g is the Searcher's own.
func (s *Searcher) SearchWith(ctx context.Context, g *Generator, req Request) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g == nil {
		g = &s.g
	} else if err := g.Validate(); err != nil {
		return nil, err
	} else if !sameTerms(g, &s.g) {
		return nil, fmt.Errorf("counterfactual: generator %s differs from the Searcher's %s in its step, loss, penalties or latent map; build a Searcher for it",
			g.Name, s.g.Name)
	}
	clf := s.clf
	q := req.withDefaults()
	b, err := q.validate(clf)
	if err != nil {
		return nil, err
	}
	d := clf.NumFeatures()
	pred, err := s.predict(q.Factuals)
	if err != nil {
		return nil, fmt.Errorf("counterfactual: predicting the factuals: %w", err)
	}
	for i, p := range pred {
		if p == q.Targets[i] {
			return nil, fmt.Errorf("counterfactual: factual %d is already predicted as its target class %d; choose another target", i, p)
		}
	}

	// The starting state: the factual itself, or its latent code.
	var z []float32
	dz := d
	rs, resampled := g.Latent.(Resampled)
	_, reencoded := g.Latent.(Reencoded)
	switch {
	case resampled:
		// The step graph draws the start from the posterior at step 0 (the state fed then is unused).
		dz = rs.LatentDim()
		z = make([]float32, b*dz)
	case g.Latent != nil:
		dz = g.Latent.LatentDim()
		if z, err = g.Latent.Encode(s.backend, q.Factuals); err != nil {
			return nil, fmt.Errorf("counterfactual: encoding the factuals: %w", err)
		}
		if len(z) != b*dz {
			return nil, fmt.Errorf("counterfactual: the latent map returned %d values for %d rows of %d", len(z), b, dz)
		}
	default:
		z = append([]float32(nil), q.Factuals...)
		if q.Lower != nil {
			for i := range z {
				z[i] = min(max(z[i], q.Lower[i%d]), q.Upper[i%d])
			}
		}
	}
	lo, hi, conflict := projectionBounds(q, b, d)

	exec, err := s.stepExec(q, b, dz, conflict != nil)
	if err != nil {
		return nil, fmt.Errorf("counterfactual %s: building the search graph: %w", g.Name, err)
	}
	var bound []string
	checked := true
	if names, built := s.dataNames[b]; built && len(names) == 0 {
		// The graph reads no data, and g has the Searcher's terms: nothing to feed.
	} else if g != &s.g || s.foreign {
		// Another generator's data were (or are now) fed to the graphs: feed g's.
		if bound, err = s.bindData(g, b); err != nil {
			return nil, err
		}
		s.foreign, checked = g != &s.g, false
	}

	// The search state stays in the backend's tensors from step to step; only the convergence flags come
	// back every step (and x′ when paths are recorded).
	var live []*tensors.Tensor
	keep := func(t *tensors.Tensor) *tensors.Tensor { live = append(live, t); return t }
	defer func() {
		for _, t := range live {
			if t != nil {
				t.MustFinalizeAll()
			}
		}
	}()
	targets := make([]int32, b)
	for i, t := range q.Targets {
		targets[i] = int32(t)
	}
	args := []any{nil, keep(tensors.FromFlatDataAndDimensions(q.Factuals, b, d)), keep(tensors.FromFlatDataAndDimensions(targets, b)), nil,
		keep(tensors.FromFlatDataAndDimensions(lo, b, d)), keep(tensors.FromFlatDataAndDimensions(hi, b, d))}
	stepArg := -1 // the index in args of the step's index t, for a Stepwise generator
	if g.Stepwise {
		stepArg = len(args)
		args = append(args, nil)
	}
	if conflict != nil {
		args = append(args, keep(tensors.FromFlatDataAndDimensions(conflict, b, d)))
	}
	var rng *rand.Rand
	eps := -1 // the index in args of the posterior noise, then the first-step flag
	switch {
	case resampled:
		rng, eps = data.NewRand(q.Seed), len(args)
		args = append(args, nil, nil)
	case reencoded:
		eps = len(args) // no noise: the first-step flag only
		args = append(args, nil, nil)
	}
	// release frees the per-step inputs (step index, noise, first-step flag) at the given indices of args.
	release := func(at ...int) {
		for _, i := range at {
			if i >= 0 && args[i] != nil {
				args[i].(*tensors.Tensor).MustFinalizeAll()
				args[i] = nil
			}
		}
	}
	defer func() {
		release(stepArg)
		if eps >= 0 {
			release(eps, eps+1)
		}
	}()
	zT := tensors.FromFlatDataAndDimensions(z, b, dz)
	var countsT *tensors.Tensor
	if g.JSMA != nil {
		countsT = tensors.FromFlatDataAndDimensions(make([]float32, b*d), b, d)
		args = append(args, nil)
	}
	defer func() {
		if zT != nil {
			zT.MustFinalizeAll()
		}
		if countsT != nil {
			countsT.MustFinalizeAll()
		}
	}()

	res := &Result{Iterations: make([]int, b), Converged: make([]bool, b)}
	if q.RecordPath {
		res.Paths = make([][]float32, b)
	}
	active := make([]float32, b)
	for i := range active {
		active[i] = 1
	}
	var moveT *tensors.Tensor
	defer func() {
		if moveT != nil {
			moveT.MustFinalizeAll()
		}
	}()
	moved := true // active changed since moveT was made
	for it := 0; ; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("counterfactual %s interrupted at step %d: %w", g.Name, it, err)
		}
		if moved || it == q.MaxIterations {
			if moveT != nil {
				moveT.MustFinalizeAll()
			}
			move := active
			if it == q.MaxIterations {
				move = make([]float32, b) // the last call only evaluates
			}
			moveT, moved = tensors.FromFlatDataAndDimensions(move, b), false
		}
		// z and the counts are donated: the step may write its outputs into their buffers.
		if args[0], err = DonateTensorBuffer(zT, s.backend, 0); err != nil {
			return nil, fmt.Errorf("counterfactual %s, step %d: %w", g.Name, it, err)
		}
		args[3] = moveT
		if stepArg >= 0 {
			release(stepArg)
			args[stepArg] = tensors.FromScalar(float32(it))
		}
		if eps >= 0 {
			release(eps, eps+1)
			first := float32(0)
			if it == 0 {
				first = 1
			}
			args[eps+1] = tensors.FromScalar(first)
			if rng != nil {
				noise := make([]float32, b*dz)
				for i := range noise {
					noise[i] = float32(rng.NormFloat64())
				}
				args[eps] = tensors.FromFlatDataAndDimensions(noise, b, dz)
			} else {
				args[eps] = tensors.FromScalar(float32(0))
			}
		}
		if countsT != nil {
			if args[len(args)-1], err = DonateTensorBuffer(countsT, s.backend, 0); err != nil {
				return nil, fmt.Errorf("counterfactual %s, step %d: %w", g.Name, it, err)
			}
		}
		outs, err := exec.Call(args...)
		if err == nil && !checked {
			// The graph exists now (it is built on its first call): it must read what was bound.
			if err = s.checkBound(g, b, bound); err != nil {
				for _, o := range outs {
					o.MustFinalizeAll()
				}
				return nil, err
			}
			checked = true
		}
		zT.MustFinalizeAll()
		zT = nil
		if countsT != nil {
			countsT.MustFinalizeAll()
			countsT = nil
		}
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s, step %d: %w", g.Name, it, err)
		}
		xT, probT, convT := outs[0], outs[1], outs[2]
		zT = outs[3]
		if g.JSMA != nil {
			countsT = outs[4]
		}
		conv := tensors.MustCopyFlatData[float32](convT)
		convT.MustFinalizeAll()
		var x []float32
		if q.RecordPath {
			x = tensors.MustCopyFlatData[float32](xT)
		}
		remaining := 0
		for i := range b {
			if active[i] == 0 {
				continue
			}
			if q.RecordPath {
				res.Paths[i] = append(res.Paths[i], x[i*d:(i+1)*d]...)
			}
			switch {
			case conv[i] != 0:
				res.Converged[i], res.Iterations[i], active[i], moved = true, it, 0, true
			case it == q.MaxIterations:
				res.Iterations[i], active[i] = it, 0
			default:
				remaining++
			}
		}
		if remaining == 0 {
			if x == nil {
				x = tensors.MustCopyFlatData[float32](xT)
			}
			res.X, res.Probability = x, tensors.MustCopyFlatData[float32](probT)
			xT.MustFinalizeAll()
			probT.MustFinalizeAll()
			return res, nil
		}
		xT.MustFinalizeAll()
		probT.MustFinalizeAll()
	}
}

// sameTerms reports whether two generators have the same step size, loss (set or not), penalties (names
// and weights) and kind of step (gradient or JSMA with the same settings, in the feature space or the same
// latent map): what a compiled step graph bakes in beyond the terms' own values.
func sameTerms(a, b *Generator) bool {
	if a.StepSize != b.StepSize || a.Stepwise != b.Stepwise || (a.Loss == nil) != (b.Loss == nil) || (a.JSMA == nil) != (b.JSMA == nil) ||
		(a.JSMA != nil && *a.JSMA != *b.JSMA) || (a.Latent == nil) != (b.Latent == nil) || len(a.Penalties) != len(b.Penalties) {
		return false
	}
	if a.Latent != nil && models.Comparable(a.Latent) && models.Comparable(b.Latent) && a.Latent != b.Latent {
		return false
	}
	for i, p := range a.Penalties {
		if p.Name != b.Penalties[i].Name || p.Weight != b.Penalties[i].Weight {
			return false
		}
	}
	return true
}

// projectionBounds computes, once per search, the clamp of project for every row: feature j of row i is
// clamped to [lo_ij, hi_ij], lo_ij = Lower_j where the feature may go down and the factual's value
// otherwise (−MaxFloat32 without bounds), hi_ij likewise; conflict marks the entries where lo_ij > hi_ij
// (a factual outside the bounds in a blocked direction: the factual's value is kept there), nil if none.
func projectionBounds(q Request, b, d int) (lo, hi []float32, conflict []bool) {
	down, up := constraintMasks(q.Mutability, d)
	lo, hi = make([]float32, b*d), make([]float32, b*d)
	found := false
	for i := range b {
		for j := range d {
			k := i*d + j
			l, u := float32(-math.MaxFloat32), float32(math.MaxFloat32)
			if q.Lower != nil {
				l, u = q.Lower[j], q.Upper[j]
			}
			if !(down[j] > 0) {
				l = q.Factuals[k]
			}
			if !(up[j] > 0) {
				u = q.Factuals[k]
			}
			lo[k], hi[k] = l, u
			if l > u {
				found = true
			}
		}
	}
	if !found {
		return lo, hi, nil
	}
	conflict = make([]bool, b*d)
	for k := range conflict {
		conflict[k] = lo[k] > hi[k]
	}
	return lo, hi, conflict
}

// stepExec returns the compiled step graph for a request's settings and shapes, building it on first use.
func (s *Searcher) stepExec(q Request, b, dz int, conflict bool) (*model.Exec, error) {
	var key strings.Builder
	fmt.Fprintf(&key, "%d,%d|%d|%x|%x|%t", b, dz, q.Rule, math.Float64bits(q.Threshold), math.Float64bits(q.GradientTol), conflict)
	if s.g.JSMA != nil { // JSMA's choice of feature reads the bounds and constraints themselves
		down, up := constraintMasks(q.Mutability, len(q.Factuals)/b)
		fmt.Fprintf(&key, "|%v|%v|%v|%v", q.Lower, q.Upper, down, up)
	}
	s.uses++
	if c, ok := s.steps[key.String()]; ok {
		c.lastUse = s.uses
		return c.exec, nil
	}
	exec, err := model.NewExec(s.backend, s.store, stepGraph(s.clf, &s.g, q, s.clf.NumFeatures(), conflict, func(name string) {
		if s.dataNames[b] == nil {
			s.dataNames[b] = map[string]bool{}
		}
		s.dataNames[b][name] = true
	}))
	if err != nil {
		return nil, err
	}
	if len(s.steps) >= maxSearcherGraphs {
		oldest := ""
		for k, c := range s.steps {
			if oldest == "" || c.lastUse < s.steps[oldest].lastUse {
				oldest = k
			}
		}
		s.steps[oldest].exec.Finalize()
		delete(s.steps, oldest)
	}
	s.steps[key.String()] = &cachedExec{exec: exec, lastUse: s.uses}
	return exec, nil
}

// stepGraph builds one search step for a batch: inputs z [B, Dz], factual [B, D], target [B], move [B]
// (1: the row may take a step), the projection's clamp lo and hi [B, D] (projectionBounds), for a
// Stepwise generator the step's index t (a scalar, State.Step), where it
// conflicts [B, D] (only when withConflict), for a Resampled latent map the step's posterior noise
// [B, Dz] and a scalar that is 1 at step 0, and, for JSMA, the change counts [B, D]; outputs x′ [B, D] and
// p(y⁺|x′) [B] at the current state, whether the row has converged there [B], the next state z and, for
// JSMA, the counts.
func stepGraph(clf models.Classifier, g *Generator, q Request, d int, withConflict bool, built func(name string)) func(*model.Scope, []*Node) []*Node {
	down, up := constraintMasks(q.Mutability, d)
	lossFn := g.Loss
	if lossFn == nil {
		lossFn = CrossEntropy
	}
	return func(scope *model.Scope, in []*Node) []*Node {
		z, factual, target, move, lo, hi := in[0], in[1], in[2], in[3], in[4], in[5]
		var stepIndex, conflict, counts, eps, first *Node
		next := 6
		if g.Stepwise {
			stepIndex, next = in[next], next+1
		}
		if withConflict {
			conflict, next = in[next], next+1
		}
		rs, resampled := g.Latent.(Resampled)
		re, reencoded := g.Latent.(Reencoded)
		if resampled || reencoded {
			eps, first, next = in[next], in[next+1], next+2
		}
		if g.JSMA != nil {
			counts = in[next]
		}
		gr := z.Graph()
		proj := func(x *Node) *Node { return project(x, factual, lo, hi, conflict) }
		xOf := func(z *Node) *Node {
			if g.Latent == nil {
				return z // kept projected by the update below
			}
			return proj(g.Latent.Decode(z))
		}
		// s is the state the gradient is taken at, x the counterfactual checked for convergence: the same
		// but for a Resampled map, whose state is z (x′ = f(z)) re-encoded through a posterior sample.
		s, x := z, xOf(z)
		if resampled {
			sample := func(x *Node) *Node {
				mu, logSigma := rs.EncodeGraph(x)
				return Add(mu, Mul(Exp(logSigma), ConvertDType(eps, mu.DType())))
			}
			isFirst := BroadcastToShape(GreaterThan(first, ScalarZero(gr, first.DType())), z.Shape())
			z = Where(isFirst, sample(factual), z) // step 0 starts from a sample of q(z|x)
			x = xOf(z)
			s = Where(isFirst, z, sample(x))
		}
		if reencoded {
			// After step 0 the state is the clamped counterfactual's code (at step 0, the factual's).
			isFirst := BroadcastToShape(GreaterThan(first, ScalarZero(gr, first.DType())), z.Shape())
			s = Where(isFirst, z, ConvertDType(re.EncodeGraph(x), z.DType()))
		}
		xs := x
		if s != z {
			xs = xOf(s)
		}
		logits := clf.Logits(xs)
		st := &State{X: xs, Factual: factual, Target: target, Logits: logits, Model: clf, Step: stepIndex, data: &stepData{scope: scope.In("data"), built: built}}
		obj := lossFn(st)
		for _, p := range g.Penalties {
			if p.Weight != 0 {
				obj = Add(obj, MulScalar(p.Term(st), p.Weight))
			}
		}
		grad := Gradient(ReduceAllSum(obj), s)[0]
		grad = Where(IsNaN(grad), ScalarZero(gr, grad.DType()), grad) // NaN gradients count as 0, as in the authors' code
		if xs != x {
			logits = clf.Logits(x)
		}
		k := logits.Shape().Dimensions[1]
		prob := ReduceSum(Mul(OneHot(target, k, logits.DType()), Softmax(logits)), -1)
		valid := GreaterOrEqual(prob, Scalar(gr, prob.DType(), q.Threshold))

		eta := g.StepSize
		var zNext, countsNext, effGrad *Node
		switch {
		case g.JSMA != nil:
			b := z.Shape().Dimensions[0]
			row := func(v []float32) *Node { return BroadcastToDims(Reshape(Const(gr, v), 1, d), b, d) }
			var bLo, bHi *Node
			if q.Lower != nil && !g.JSMA.BoundsBlind {
				bLo, bHi = row(q.Lower), row(q.Upper)
			}
			zNext, countsNext = jsmaStep(z, grad, factual, bLo, bHi, row(down), row(up), counts, eta, float64(g.maxChanges()), proj)
			effGrad = grad
		case g.Latent == nil:
			zNext = proj(Sub(z, MulScalar(grad, eta)))
			effGrad = DivScalar(Sub(z, zNext), eta) // the projected gradient
		default:
			zNext = Sub(s, MulScalar(grad, eta))
			effGrad = grad
		}
		conv := valid
		switch {
		case q.Rule == MaxIterations:
			conv = ZerosLike(valid)
		case q.Rule == GeneratorConditionsAll || (q.Rule == GeneratorConditions && g.JSMA == nil):
			small := LessThan(ReduceMax(Abs(effGrad), -1), Scalar(gr, effGrad.DType(), q.GradientTol))
			conv = LogicalAnd(valid, small)
		}
		step := LogicalAnd(GreaterThan(move, ScalarZero(gr, move.DType())), LogicalNot(conv))
		out := []*Node{x, prob, ConvertDType(conv, dtypes.Float32), Where(step, zNext, z)}
		if counts != nil {
			out = append(out, Where(step, countsNext, counts))
		}
		return out
	}
}

// jsmaStep is Schut et al.'s greedy step for every row: among the features that are not frozen (changed
// fewer than n times) and may move in the descent direction (mutability, bounds), the one with the largest
// |gradient| moves by η·(−sign(gradient)); its counter grows by one. Rows where every such feature is
// frozen have their counters reset. proj projects the moved x onto the bounds and constraints.
func jsmaStep(x, grad, factual, lo, hi, down, up, counts *Node, eta, n float64, proj func(*Node) *Node) (xNext, countsNext *Node) {
	gr := x.Graph()
	zero := ZerosLike(grad)
	// Descent moves x_j down where the gradient is positive, up where it is negative.
	goesDown, goesUp := GreaterThan(grad, zero), LessThan(grad, zero)
	fits := func(dir, mask, bound *Node, cmpBeyond func(a, b *Node) *Node) *Node {
		ok := LogicalAnd(dir, GreaterThan(mask, ScalarZero(gr, mask.DType())))
		if bound != nil {
			ok = LogicalAnd(ok, cmpBeyond(x, bound))
		}
		return ok
	}
	canDown := fits(goesDown, down, lo, GreaterThan)
	canUp := fits(goesUp, up, hi, LessThan)
	// Decrease-only features may still move back up towards the factual and vice versa.
	canDown = LogicalOr(canDown, LogicalAnd(goesDown, GreaterThan(x, factual)))
	canUp = LogicalOr(canUp, LogicalAnd(goesUp, LessThan(x, factual)))
	free := LessThan(counts, Scalar(gr, counts.DType(), n))
	candidate := LogicalAnd(free, LogicalOr(canDown, canUp))
	score := Where(candidate, Abs(grad), Scalar(gr, grad.DType(), -1))
	best := ArgMax(score, -1, dtypes.Int32)
	d := x.Shape().Dimensions[1]
	pick := OneHot(best, d, x.DType())
	has := ConvertDType(GreaterThan(ReduceMax(score, -1), ScalarZero(gr, score.DType())), x.DType()) // [B]
	pick = Mul(pick, ExpandAxes(has, -1))
	xNext = proj(Sub(x, MulScalar(Mul(pick, Sign(grad)), eta)))
	countsNext = Add(counts, pick)
	// Reset the counters of rows whose movable features are all frozen.
	movable := LogicalOr(GreaterThan(down, ZerosLike(down)), GreaterThan(up, ZerosLike(up)))
	stillFree := LogicalAnd(movable, LessThan(countsNext, Scalar(gr, counts.DType(), n)))
	anyFree := ReduceLogicalOr(stillFree, -1)
	countsNext = Where(anyFree, countsNext, ZerosLike(countsNext))
	return xNext, countsNext
}
