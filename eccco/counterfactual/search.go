package counterfactual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
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
	// OneHot lists the one-hot groups of the features (a categorical feature's inputs; each group a
	// contiguous ascending run of at least two features, groups disjoint). The counterfactual x′ of every
	// step holds exactly one 1 in each group, the category whose search value is the largest (the first
	// on a tie), and zeros: the state is searched continuously within the bounds, and the objective's
	// gradient passes the rounding unchanged (a straight-through estimator; Bengio et al., 2013), so a
	// category changes when the state of another one overtakes it. In a latent space the decoded x′ is
	// rounded likewise. nil: no groups.
	OneHot [][]int
	// MaxIterations caps the steps (0: DefaultMaxIterations).
	MaxIterations int
	// Rule, Threshold γ (0: 0.5) and GradientTol τ (0: 0.01) decide convergence.
	Rule        Rule
	Threshold   float64
	GradientTol float64
	// RecordPath keeps every row's x′ at every step in Result.Paths (the search then takes one graph call
	// per step, to read x′ back).
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
	next := 0
	for gi, g := range r.OneHot {
		if len(g) < 2 || g[0] < next || g[len(g)-1] >= d {
			return 0, fmt.Errorf("counterfactual: one-hot group %d %v is not a run of at least 2 features within 0 … %d after the previous group", gi, g, d-1)
		}
		for i := range g {
			if g[i] != g[0]+i {
				return 0, fmt.Errorf("counterfactual: one-hot group %d %v is not a contiguous ascending run", gi, g)
			}
		}
		next = g[len(g)-1] + 1
		for _, j := range g {
			if r.Lower == nil || r.Lower[j] < 0 {
				return 0, fmt.Errorf("counterfactual: one-hot group %d needs bounds with a non-negative lower bound (0 and 1: a category's inputs)", gi)
			}
		}
	}
	return len(r.Targets), nil
}

// Search finds counterfactuals for all rows of req at once with generator g: one GoMLX graph call per step
// for the whole batch (a Searcher's repeated searches take 10 steps per call). Each row starts at its factual (its latent code under g.Latent), takes gradient
// steps (or JSMA steps) on its own objective, is clamped to the bounds and projected onto its mutability
// constraints after every step, and stops moving once it converges while the other rows go on.
//
// A target equal to the model's prediction for its factual, a wrong feature count, a NaN input, an
// unknown generator setting or a negative weight give an error before any search. ctx is checked before
// each graph call: a cancelled search stops within 10 steps.
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

// maxSearcherGraphs bounds the compiled search graphs a Searcher keeps (up to two per batch size and
// request settings: a chunk of searchChunk steps and the last, shorter chunk); the least recently used one
// is released beyond it.
const maxSearcherGraphs = 16

// Searcher searches counterfactuals of one classifier with one generator and keeps the compiled graphs
// of its search steps (up to two per batch size, latent width and graph-relevant request settings: bounds and
// mutability of JSMA generators, rule, threshold and tolerance) and of the factuals' prediction, so that
// repeated searches skip building and compiling them. Its results are those of Search, bit for bit (a few
// float32 ulps on XLA, which compiles the two kinds of graph below separately).
//
// Its first search of a batch size and settings takes one graph call per step, as Search does; from the
// second on, the same searches take 10 steps per call (a graph compiled then), with the convergence
// bookkeeping in the graph, except with RecordPath.
// ctx is checked before each call.
//
// The model's weights are read when each step runs, so a Searcher sees weights that change (training
// continued, a checkpoint restored into the same variables). The generator is copied by NewSearcher, but
// what its terms read while a graph is built (a calibrated classifier's q̂, a latent map's parameters held
// as Go values) is fixed in the compiled graphs: build a new Searcher after changing them. Its penalties'
// Inputs (SGLD samples) are inputs of the graphs instead: SearchWith feeds another generator's.
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
	// store holds the step graphs' inputs (Penalty.Inputs), under the scope "data"; ownInputs[b] is set
	// while those of the graphs for batch size b hold the Searcher's own generator's values (SearchWith
	// feeds another's).
	store     *model.Store
	ownInputs map[int]bool
	// chunk is the number of steps per graph call (searchChunk; 1: one call per step, the host loop that
	// RecordPath takes, which tests compare the chunks with).
	chunk int
	// shareClamp passes a clamp that is the same for every row as one row (projectionBounds; sharesClamp
	// of the backend); oneClamp passes one that is the same for every value as one value (true but in
	// tests, which compare it with the other layouts).
	shareClamp, oneClamp bool
	// searched holds the graph keys (graphKey, steps 0) of the requests searched so far: the first search
	// of each takes one step per call (a one-off search compiles only the one-step graph).
	searched map[string]bool
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
		ownInputs: map[int]bool{}, chunk: searchChunk, shareClamp: sharesClamp(backend), oneClamp: true, searched: map[string]bool{}}, nil
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
// graphs: g must be built as the Searcher's generator was (the same Spec, parameters and ingredients:
// Spec.GraphKey says when two are) except for the values of its penalties' Inputs, such as
// ECCCo-L1's SGLD samples of another run, which are fed to the compiled graphs; their names and shapes
// must match. The results are those of Search with g, bit for bit. A nil g is the Searcher's own.
func (s *Searcher) SearchWith(ctx context.Context, g *Generator, req Request) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.generator(g)
	if err != nil {
		return nil, err
	}
	q, b, err := s.request(req)
	if err != nil {
		return nil, err
	}
	d := s.clf.NumFeatures()
	z, dz, err := startState(s.backend, g, q, b, d)
	if err != nil {
		return nil, err
	}
	bounds := projectionBounds(q, b, d, s.shareClamp, s.oneClamp)
	if err := s.feedInputs(g, b); err != nil {
		return nil, err
	}
	conflict := bounds.conflict != nil
	if !s.searchedBefore(q, b, dz, conflict) || q.RecordPath || s.chunk <= 1 {
		exec, err := s.stepExec(q, b, dz, conflict, 0)
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s: building the search graph: %w", g.Name, err)
		}
		run := newDescent(s.backend, exec, g, q, b, dz, z, bounds)
		defer run.free()
		return run.descend(ctx, g.Name, q)
	}
	return s.descendChunks(ctx, g, q, b, dz, z, bounds)
}

// generator returns the generator a search uses: the Searcher's own for nil, else g once it is valid and
// has the Searcher's terms and inputs' shapes (what the compiled graphs bake in).
func (s *Searcher) generator(g *Generator) (*Generator, error) {
	switch {
	case g == nil:
		return &s.g, nil
	case g.Validate() != nil:
		return nil, g.Validate()
	case !sameTerms(g, &s.g):
		return nil, fmt.Errorf("counterfactual: generator %s differs from the Searcher's %s in its step, loss, penalties or latent map; build a Searcher for it",
			g.Name, s.g.Name)
	case !sameInputs(g, &s.g):
		return nil, fmt.Errorf("counterfactual: generator %s reads inputs of other names or shapes than the Searcher's %s; build a Searcher for it",
			g.Name, s.g.Name)
	}
	return g, nil
}

// request returns req with its defaults and its batch size, once it is valid for the Searcher's model and
// no factual is already predicted as its target.
func (s *Searcher) request(req Request) (Request, int, error) {
	q := req.withDefaults()
	b, err := q.validate(s.clf)
	if err != nil {
		return q, 0, err
	}
	pred, err := s.predict(q.Factuals)
	if err != nil {
		return q, 0, fmt.Errorf("counterfactual: predicting the factuals: %w", err)
	}
	for i, p := range pred {
		if p == q.Targets[i] {
			return q, 0, fmt.Errorf("counterfactual: factual %d is already predicted as its target class %d; choose another target", i, p)
		}
	}
	return q, b, nil
}

// startState returns the search's starting state z [B, Dz] and its width Dz: the factual clamped to the
// bounds, or its latent code; for a Resampled latent map zeros, since the step graph draws the start from
// the posterior at step 0 and does not read the state fed then.
func startState(backend compute.Backend, g *Generator, q Request, b, d int) (z []float32, dz int, err error) {
	if rs, ok := g.Latent.(Resampled); ok {
		dz = rs.LatentDim()
		return make([]float32, b*dz), dz, nil
	}
	if g.Latent != nil {
		dz = g.Latent.LatentDim()
		if z, err = g.Latent.Encode(backend, q.Factuals); err != nil {
			return nil, 0, fmt.Errorf("counterfactual: encoding the factuals: %w", err)
		}
		if len(z) != b*dz {
			return nil, 0, fmt.Errorf("counterfactual: the latent map returned %d values for %d rows of %d", len(z), b, dz)
		}
		return z, dz, nil
	}
	z = append([]float32(nil), q.Factuals...)
	if q.Lower != nil {
		for i := range z {
			z[i] = min(max(z[i], q.Lower[i%d]), q.Upper[i%d])
		}
	}
	return z, d, nil
}

// feedInputs makes the graphs for batch size b read g's inputs (Penalty.Inputs): it sets them unless
// they hold the Searcher's own already and g is the Searcher's own.
func (s *Searcher) feedInputs(g *Generator, b int) error {
	own := g == &s.g
	if !hasInputs(g) || own && s.ownInputs[b] {
		return nil
	}
	if err := s.bindInputs(g, b); err != nil {
		return err
	}
	s.ownInputs[b] = own
	return nil
}

// hasInputs reports whether a penalty of g of non-zero weight declares inputs.
func hasInputs(g *Generator) bool {
	for _, p := range g.Penalties {
		if p.Weight != 0 && len(p.Inputs) > 0 {
			return true
		}
	}
	return false
}

// stepInputs are the inputs of one call of a step graph, by name: the tensors fed (T = *tensors.Tensor)
// and, inside stepGraph, the nodes that receive them (T = *Node). The optional ones are there only where
// the step graph's layout has them (stepLayout); inputOrder gives the order of the graph's parameters.
type stepInputs[T any] struct {
	z        T // the search state [B, Dz]; its tensor is donated to the call
	factual  T // x [B, D]
	target   T // y⁺ [B] (int32)
	move     T // [B]: 1 where the row may take a step
	lo, hi   T // the projection's clamp [B, D], or [1, D] where every row's is the same, [1, 1] where every value's is (projectionBounds)
	step     T // Stepwise generators: the step's index t, a scalar (State.Step)
	conflict T // where the clamp's bounds cross (projectionBounds): true there [B, D] (never with a shared clamp)
	noise    T // re-encoding latent maps: Resampled, the step's posterior noise [B, Dz]; Reencoded, a scalar 0
	first    T // re-encoding latent maps: a scalar, 1 at step 0
	counts   T // JSMA: the change counts [B, D]; its tensor is donated to the call
}

// stepLayout says which optional inputs a step graph has.
type stepLayout struct {
	stepwise  bool // step
	conflict  bool // conflict
	reencodes bool // noise and first: a Resampled or Reencoded latent map
	jsma      bool // counts
}

func layoutOf(g *Generator, conflict bool) stepLayout {
	_, resampled := g.Latent.(Resampled)
	_, reencoded := g.Latent.(Reencoded)
	return stepLayout{stepwise: g.Stepwise, conflict: conflict, reencodes: resampled || reencoded, jsma: g.JSMA != nil}
}

// inputOrder lists the inputs of a step graph of layout l in the order of its parameters: z, factual,
// target, move, lo, hi, then step, conflict, noise and first, counts where l has them.
func inputOrder[T any](l stepLayout, in *stepInputs[T]) []*T {
	order := []*T{&in.z, &in.factual, &in.target, &in.move, &in.lo, &in.hi}
	if l.stepwise {
		order = append(order, &in.step)
	}
	if l.conflict {
		order = append(order, &in.conflict)
	}
	if l.reencodes {
		order = append(order, &in.noise, &in.first)
	}
	if l.jsma {
		order = append(order, &in.counts)
	}
	return order
}

// descent is one search in progress. Its state stays in the backend's tensors from step to step; only the
// convergence flags come back every step (and x′ when paths are recorded).
type descent struct {
	backend compute.Backend
	exec    *model.Exec
	layout  stepLayout
	in      stepInputs[*tensors.Tensor]
	rng     *rand.Rand // the posterior noise of a Resampled latent map (nil: none)
	b, d    int
	dz      int
}

// newDescent holds the inputs of the first step: the state z, and the factuals, targets, clamp and
// conflicts of the request, which stay the same at every step.
func newDescent(backend compute.Backend, exec *model.Exec, g *Generator, q Request, b, dz int, z []float32, bounds clamp) *descent {
	d := len(q.Factuals) / b
	r := &descent{backend: backend, exec: exec, layout: layoutOf(g, bounds.conflict != nil), b: b, d: d, dz: dz}
	targets := make([]int32, b)
	for i, t := range q.Targets {
		targets[i] = int32(t)
	}
	r.in.factual = tensors.FromFlatDataAndDimensions(q.Factuals, b, d)
	r.in.target = tensors.FromFlatDataAndDimensions(targets, b)
	r.in.lo, r.in.hi, r.in.conflict = bounds.tensors()
	if _, ok := g.Latent.(Resampled); ok {
		r.rng = data.NewRand(q.Seed)
	}
	r.in.z = tensors.FromFlatDataAndDimensions(z, b, dz)
	if r.layout.jsma {
		r.in.counts = tensors.FromFlatDataAndDimensions(make([]float32, b*d), b, d)
	}
	return r
}

// free releases every input tensor the descent still holds.
func (r *descent) free() {
	for _, t := range inputOrder(stepLayout{true, true, true, true}, &r.in) {
		replace(t, nil)
	}
}

// replace frees the tensor *t holds, if any, and puts v there.
func replace(t **tensors.Tensor, v *tensors.Tensor) {
	if *t != nil {
		(*t).MustFinalizeAll()
	}
	*t = v
}

// setStep sets the inputs of step it that change from step to step: the rows that may move (move, nil:
// unchanged), the step's index, and the posterior noise and first-step flag of a re-encoding latent map.
func (r *descent) setStep(it int, move []float32) {
	if move != nil {
		replace(&r.in.move, tensors.FromFlatDataAndDimensions(move, r.b))
	}
	if r.layout.stepwise {
		replace(&r.in.step, tensors.FromScalar(float32(it)))
	}
	if !r.layout.reencodes {
		return
	}
	first := float32(0)
	if it == 0 {
		first = 1
	}
	replace(&r.in.first, tensors.FromScalar(first))
	if r.rng == nil {
		replace(&r.in.noise, tensors.FromScalar(float32(0)))
		return
	}
	noise := make([]float32, r.b*r.dz)
	for i := range noise {
		noise[i] = float32(r.rng.NormFloat64())
	}
	replace(&r.in.noise, tensors.FromFlatDataAndDimensions(noise, r.b, r.dz))
}

// stepOutputs are the outputs of one call of a step graph: x′ and p(y⁺|x′) at the current state, whether
// each row has converged there (1 or 0), and the next state; the descent keeps the next state and counts.
type stepOutputs struct {
	x, prob, converged *tensors.Tensor
}

// call runs one step: the state and the counts are donated (the step may write its outputs into their
// buffers) and replaced by the step's next ones.
func (r *descent) call() (stepOutputs, error) {
	order := inputOrder(r.layout, &r.in)
	args := make([]any, len(order))
	for i, t := range order {
		args[i] = *t
		if t == &r.in.z || t == &r.in.counts {
			donated, err := DonateTensorBuffer(*t, r.backend, 0)
			if err != nil {
				return stepOutputs{}, err
			}
			args[i] = donated
		}
	}
	outs, err := r.exec.Call(args...)
	replace(&r.in.z, nil)
	replace(&r.in.counts, nil)
	if err != nil {
		return stepOutputs{}, err
	}
	r.in.z = outs[3]
	if r.layout.jsma {
		r.in.counts = outs[4]
	}
	return stepOutputs{x: outs[0], prob: outs[1], converged: outs[2]}, nil
}

// descend takes steps until every row has converged or taken q.MaxIterations steps; a row that has
// converged stops moving while the others go on.
func (r *descent) descend(ctx context.Context, name string, q Request) (*Result, error) {
	b, d := r.b, r.d
	res := &Result{Iterations: make([]int, b), Converged: make([]bool, b)}
	if q.RecordPath {
		res.Paths = make([][]float32, b)
	}
	active := make([]float32, b)
	for i := range active {
		active[i] = 1
	}
	moved := true // active changed since the move input was made
	for it := 0; ; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("counterfactual %s interrupted at step %d: %w", name, it, err)
		}
		var move []float32
		switch {
		case it == q.MaxIterations:
			move = make([]float32, b) // the last call only evaluates
		case moved:
			move = active
		}
		moved = false
		r.setStep(it, move)
		out, err := r.call()
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s, step %d: %w", name, it, err)
		}
		conv := tensors.MustCopyFlatData[float32](out.converged)
		out.converged.MustFinalizeAll()
		var x []float32
		if q.RecordPath {
			x = tensors.MustCopyFlatData[float32](out.x)
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
				x = tensors.MustCopyFlatData[float32](out.x)
			}
			res.X, res.Probability = x, tensors.MustCopyFlatData[float32](out.prob)
		}
		out.x.MustFinalizeAll()
		out.prob.MustFinalizeAll()
		if remaining == 0 {
			return res, nil
		}
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
// Where every feature may move both ways the clamp is the same for every row: with one, where the bounds
// are also the same for every feature (images, or no bounds), lo and hi hold one value each ([1, 1]);
// else, with share, they hold that one row ([1, D]). project broadcasts either: the same values.
// Otherwise rows = b.
func projectionBounds(q Request, b, d int, share, one bool) clamp {
	down, up := constraintMasks(q.Mutability, d)
	free := true
	for j := range d {
		free = free && down[j] > 0 && up[j] > 0
	}
	if free && one && (q.Lower == nil || allEqual(q.Lower) && allEqual(q.Upper)) && (q.Lower == nil || q.Lower[0] <= q.Upper[0]) {
		l, u := float32(-math.MaxFloat32), float32(math.MaxFloat32)
		if q.Lower != nil {
			l, u = q.Lower[0], q.Upper[0]
		}
		return clamp{lo: []float32{l}, hi: []float32{u}, rows: 1, d: 1}
	}
	rows := b
	if free && share {
		rows = 1
	}
	lo, hi := make([]float32, rows*d), make([]float32, rows*d)
	found := false
	for i := range rows {
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
	c := clamp{lo: lo, hi: hi, rows: rows, d: d}
	if !found {
		return c
	}
	c.conflict = make([]bool, rows*d)
	for k := range c.conflict {
		c.conflict[k] = lo[k] > hi[k]
	}
	return c
}

// allEqual reports whether every value of v is its first.
func allEqual(v []float32) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

// sharesClamp reports whether searches on a backend take a clamp that is the same for every row as one
// row (projectionBounds): on XLA, which fuses the broadcast into the step, so that a step reads two
// [B, D] arrays fewer; not on the pure-Go backend, which would write the broadcast out at every step.
func sharesClamp(b compute.Backend) bool { return backend.IsXLA(b) }

// clamp is the projection's clamp of a search (projectionBounds): lo and hi [rows, d], and conflict
// [rows, d] or nil, where rows is 1 (the same clamp for every row) or the batch size, and d the number of
// features, or 1 (rows 1: the same clamp for every value).
type clamp struct {
	lo, hi   []float32
	conflict []bool
	rows, d  int
}

// tensors returns the clamp's lo and hi as tensors [rows, D], and conflict (nil if none).
func (c clamp) tensors() (lo, hi, conflict *tensors.Tensor) {
	lo = tensors.FromFlatDataAndDimensions(c.lo, c.rows, c.d)
	hi = tensors.FromFlatDataAndDimensions(c.hi, c.rows, c.d)
	if c.conflict != nil {
		conflict = tensors.FromFlatDataAndDimensions(c.conflict, c.rows, c.d)
	}
	return lo, hi, conflict
}

// stepExec returns the compiled graph for a request's settings and shapes, building it on first use: the
// step graph (stepGraph) for steps = 0, else the graph of that many steps (chunkGraph).
func (s *Searcher) stepExec(q Request, b, dz int, conflict bool, steps int) (*model.Exec, error) {
	key := s.graphKey(q, b, dz, conflict, steps)
	s.uses++
	if c, ok := s.steps[key]; ok {
		c.lastUse = s.uses
		return c.exec, nil
	}
	return s.compile(q, conflict, steps, key)
}

// graphKey identifies the compiled graph of steps steps (0: the step graph) for a request's settings and
// shapes.
func (s *Searcher) graphKey(q Request, b, dz int, conflict bool, steps int) string {
	var key strings.Builder
	fmt.Fprintf(&key, "%d,%d|%d|%x|%x|%t|%d", b, dz, q.Rule, math.Float64bits(q.Threshold), math.Float64bits(q.GradientTol), conflict, steps)
	if steps > 0 {
		fmt.Fprintf(&key, "|T%d", q.MaxIterations)
	}
	if q.OneHot != nil {
		fmt.Fprintf(&key, "|onehot%v", q.OneHot)
	}
	if s.g.JSMA != nil { // JSMA's choice of feature reads the bounds and constraints themselves
		down, up := constraintMasks(q.Mutability, len(q.Factuals)/b)
		fmt.Fprintf(&key, "|%v|%v|%v|%v", q.Lower, q.Upper, down, up)
	}
	return key.String()
}

// searchedBefore reports whether the Searcher searched a request of q's batch size and graph settings
// before, and remembers that it has now.
func (s *Searcher) searchedBefore(q Request, b, dz int, conflict bool) bool {
	key := s.graphKey(q, b, dz, conflict, 0)
	if s.searched[key] {
		return true
	}
	if len(s.searched) >= 1024 {
		clear(s.searched)
	}
	s.searched[key] = true
	return false
}

// compile builds and compiles the graph of key (stepExec), releasing the least recently used one beyond
// maxSearcherGraphs.
func (s *Searcher) compile(q Request, conflict bool, steps int, key string) (*model.Exec, error) {
	build := stepGraph(s.clf, &s.g, q, s.clf.NumFeatures(), conflict)
	if steps > 0 {
		build = chunkGraph(s.clf, &s.g, q, s.clf.NumFeatures(), conflict, steps)
	}
	if hasInputs(&s.g) { // bindInputs sets them anew for another generator's values
		inner := build
		build = func(scope *model.Scope, nodes []*Node) []*Node {
			livevars.Mark(nodes[0].Graph())
			return inner(scope, nodes)
		}
	}
	exec, err := model.NewExec(s.backend, s.store, build)
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
	s.steps[key] = &cachedExec{exec: exec, lastUse: s.uses}
	return exec, nil
}

// stepGraph builds one search step for a batch. Its inputs are the stepInputs of its layout (stepLayout,
// in the order of inputOrder); its outputs x′ [B, D] and p(y⁺|x′) [B] at the current state, whether the
// row has converged there [B], the next state z and, for JSMA, the counts. Only the rows whose move is 1
// take a step. The penalties' inputs are variables of scope's "data" (Searcher.bindInputs sets them).
func stepGraph(clf models.Classifier, g *Generator, q Request, d int, withConflict bool) func(*model.Scope, []*Node) []*Node {
	step := stepNodes(clf, g, q, d)
	layout := layoutOf(g, withConflict)
	return func(scope *model.Scope, nodes []*Node) []*Node {
		var in stepInputs[*Node]
		for i, p := range inputOrder(layout, &in) {
			*p = nodes[i]
		}
		return step(scope.In("data"), in)
	}
}

// stepNodes returns the maths of one search step, shared by the step graph (stepGraph) and the graph of
// several steps (chunkGraph): given its inputs as nodes (those its layout lacks nil) and the scope of the
// penalties' inputs, the outputs of stepGraph.
func stepNodes(clf models.Classifier, g *Generator, q Request, d int) func(*model.Scope, stepInputs[*Node]) []*Node {
	down, up := constraintMasks(q.Mutability, d)
	return func(inputScope *model.Scope, in stepInputs[*Node]) []*Node {
		z, factual, target, move, counts := in.z, in.factual, in.target, in.move, in.counts
		rs, resampled := g.Latent.(Resampled)
		re, reencoded := g.Latent.(Reencoded)
		gr := z.Graph()
		proj := func(x *Node) *Node { return project(x, factual, in.lo, in.hi, in.conflict) }
		xOf := func(z *Node) *Node {
			if g.Latent == nil {
				return oneHot(z, z, q.OneHot) // z is kept projected by the update below
			}
			if q.OneHot == nil {
				return proj(g.Latent.Decode(z))
			}
			// The category is the clamped decoded group's largest entry, ties (several clamped to the
			// upper bound) broken by the decoded values; the gradient passes to the decoded group
			// unclamped (a category at the bound 0 would otherwise have none).
			dec := g.Latent.Decode(z)
			x := proj(dec)
			base := mapGroups(x, q.OneHot, func(a, b int, _ *Node) *Node { return Slice(dec, AxisRange(), AxisRange(a, b)) })
			return oneHot(base, Add(x, MulScalar(Tanh(dec), 1e-3)), q.OneHot)
		}
		// s is the state the gradient is taken at, x the counterfactual checked for convergence: the same
		// but for a Resampled map, whose state is z (x′ = f(z)) re-encoded through a posterior sample.
		s, x := z, xOf(z)
		if resampled {
			sample := func(x *Node) *Node {
				mu, logSigma := rs.EncodeGraph(x)
				return Add(mu, Mul(Exp(logSigma), ConvertDType(in.noise, mu.DType())))
			}
			isFirst := BroadcastToShape(GreaterThan(in.first, ScalarZero(gr, in.first.DType())), z.Shape())
			z = Where(isFirst, sample(factual), z) // step 0 starts from a sample of q(z|x)
			x = xOf(z)
			s = Where(isFirst, z, sample(x))
		}
		if reencoded {
			// After step 0 the state is the clamped counterfactual's code (at step 0, the factual's).
			isFirst := BroadcastToShape(GreaterThan(in.first, ScalarZero(gr, in.first.DType())), z.Shape())
			s = Where(isFirst, z, ConvertDType(re.EncodeGraph(x), z.DType()))
		}
		xs := x
		if s != z {
			xs = xOf(s)
		}
		logits := clf.Logits(xs)
		st := &State{X: xs, Factual: factual, Target: target, Logits: logits, Model: clf, Step: in.step, inputScope: inputScope}
		obj := g.Objective(st)
		grad := Gradient(ReduceAllSum(obj), s)[0]
		grad = zeroNaNs(grad) // NaN gradients count as 0, as in the authors' code
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
			if g.Latent == nil {
				zNext = normaliseGroups(zNext, q.OneHot)
			}
			effGrad = grad
		case g.Latent == nil:
			zNext = normaliseGroups(proj(Sub(z, MulScalar(grad, eta))), q.OneHot)
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
		out := []*Node{x, prob, ConvertDType(conv, dtypes.Float32), whereRows(step, zNext, z)}
		if counts != nil {
			out = append(out, whereRows(step, countsNext, counts))
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
	countsNext = whereRows(anyFree, countsNext, ZerosLike(countsNext))
	return xNext, countsNext
}
