package energy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Defaults of the paper (appendix, "Energy-Based Modelling" and table of EBM parameters).
const (
	DefaultStepSize     = 2.0  // φ, the step of the gradient term
	DefaultNoiseSD      = 0.01 // σ, the sd of the noise term
	DefaultSteps        = 500  // J at inference (the unfaithfulness metric)
	DefaultStepsPerCall = 10   // unrolled SGLD steps per graph call
	AuthorsClipGrad     = 0.01 // the authors' code clips gradients element-wise to ±0.01
)

// SGLD configures the sampler. The zero value is not useful; start from DefaultSGLD or AuthorsSGLD.
type SGLD struct {
	// StepSize is φ (biased form) or ε (unbiased form): the gradient term is −(StepSize/2)·∇E.
	StepSize float64
	// NoiseSD is σ, the sd of the Gaussian noise of the biased form; ignored when Unbiased.
	NoiseSD float64
	// Unbiased selects the textbook update x ← x − (ε/2)∇E + √ε·ξ (noise sd √StepSize).
	Unbiased bool
	// ClipGrad, when positive, clips every gradient element to [−ClipGrad, ClipGrad] (paper code: 0.01).
	ClipGrad float64
	// BatchMeanGrad differentiates the mean energy over the chains instead of the sum, dividing every
	// chain's gradient by the number of chains in the batch: a quirk of the authors' code (authors'-code
	// compatibility). SamplePerClass runs all classes in one batch, so there it divides by K·Chains.
	BatchMeanGrad bool
	// Steps is the number of SGLD steps J (> 0).
	Steps int
	// StepsPerCall is the number of steps unrolled in one graph call; 0 means DefaultStepsPerCall.
	StepsPerCall int
	// Lower and Upper, when not nil, clamp every feature after every step (length D each).
	Lower, Upper []float32
	// ClampAtEnd clamps to Lower and Upper only once, after the last step, instead of after every step:
	// the authors' sampler (JointEnergyModels v0.1.3 src/Samplers/Samplers.jl:50 clamps the result of
	// mcmc_samples, whose steps, l.166-170, do not clamp).
	ClampAtEnd bool
}

// DefaultSGLD returns the paper's biased sampler: φ = 2, σ = 0.01, J = 500, no clipping or clamping.
func DefaultSGLD() SGLD {
	return SGLD{StepSize: DefaultStepSize, NoiseSD: DefaultNoiseSD, Steps: DefaultSteps}
}

// AuthorsSGLD returns DefaultSGLD with the authors' code quirks: gradients clipped to ±0.01 and
// computed from the batch-mean energy.
func AuthorsSGLD() SGLD {
	s := DefaultSGLD()
	s.ClipGrad, s.BatchMeanGrad = AuthorsClipGrad, true
	return s
}

// NoiseScale returns the sd of the noise term: √StepSize when Unbiased, NoiseSD otherwise.
func (s SGLD) NoiseScale() float64 {
	if s.Unbiased {
		return math.Sqrt(s.StepSize)
	}
	return s.NoiseSD
}

func (s SGLD) stepsPerCall() int {
	if s.StepsPerCall <= 0 {
		return DefaultStepsPerCall
	}
	return s.StepsPerCall
}

// Validate checks the settings for inputs of d features.
func (s SGLD) Validate(d int) error {
	switch {
	case d <= 0:
		return fmt.Errorf("sgld: %d features, must be positive", d)
	case !(s.StepSize > 0) || math.IsInf(s.StepSize, 0):
		return fmt.Errorf("sgld: StepSize = %v, must be positive and finite", s.StepSize)
	case !s.Unbiased && (!(s.NoiseSD >= 0) || math.IsInf(s.NoiseSD, 0)):
		return fmt.Errorf("sgld: NoiseSD = %v, must be non-negative and finite", s.NoiseSD)
	case s.ClipGrad < 0 || math.IsNaN(s.ClipGrad):
		return fmt.Errorf("sgld: ClipGrad = %v, must be non-negative (0 = no clipping)", s.ClipGrad)
	case s.Steps <= 0:
		return fmt.Errorf("sgld: Steps = %d, must be positive", s.Steps)
	case (s.Lower == nil) != (s.Upper == nil):
		return fmt.Errorf("sgld: set both Lower and Upper bounds, or neither")
	case s.Lower != nil && (len(s.Lower) != d || len(s.Upper) != d):
		return fmt.Errorf("sgld: bounds have %d and %d values, want %d", len(s.Lower), len(s.Upper), d)
	}
	for j := range s.Lower {
		if !(s.Lower[j] <= s.Upper[j]) {
			return fmt.Errorf("sgld: feature %d has Lower %v > Upper %v", j, s.Lower[j], s.Upper[j])
		}
	}
	return nil
}

// step builds one SGLD update of x [B, D] with standard normal noise [B, D] in the graph.
func (s SGLD) step(energy Energy, x, y, noise, lo, hi *Node) *Node {
	grad := gradientOf(energy(x, y), x, s.BatchMeanGrad)
	if s.ClipGrad > 0 {
		grad = ClipScalar(grad, -s.ClipGrad, s.ClipGrad)
	}
	x = Sub(x, MulScalar(grad, s.StepSize/2))
	if sd := s.NoiseScale(); sd != 0 {
		x = Add(x, MulScalar(noise, sd))
	}
	if lo != nil {
		x = Clamp(lo, x, hi)
	}
	return x
}

// Sampler is an SGLD sampler compiled for one energy and input width: reuse it for many runs (for instance
// once per JEM minibatch) to avoid rebuilding graphs. It is not safe for concurrent use.
type Sampler struct {
	cfg     SGLD
	backend compute.Backend
	energy  Energy
	d       int
	steps   map[int]*model.Exec // keyed by unrolled steps per call
	eval    *model.Exec
	// live marks the graphs as reading the energy's variables at every call (livevars): set where they
	// change between runs (JEM training). Otherwise a graph reads them as they were when it compiled.
	live bool
}

// NewSampler validates s and prepares a sampler of energy for inputs of d features. Graphs are built and
// compiled on first use for each batch size.
func (s SGLD) NewSampler(backend compute.Backend, energy Energy, d int) (*Sampler, error) {
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	if backend == nil || energy == nil {
		return nil, fmt.Errorf("sgld: nil backend or energy")
	}
	s.Lower, s.Upper = cloneOrNil(s.Lower), cloneOrNil(s.Upper)
	return &Sampler{cfg: s, backend: backend, energy: energy, d: d, steps: map[int]*model.Exec{}}, nil
}

func cloneOrNil(v []float32) []float32 {
	if v == nil {
		return nil
	}
	return append([]float32(nil), v...)
}

// Config returns the sampler's settings.
func (sp *Sampler) Config() SGLD { return sp.cfg }

// Finalize releases the compiled graphs.
func (sp *Sampler) Finalize() {
	for _, e := range sp.steps {
		e.Finalize()
	}
	sp.steps = map[int]*model.Exec{}
	if sp.eval != nil {
		sp.eval.Finalize()
		sp.eval = nil
	}
}

func (sp *Sampler) stepExec(k int) (*model.Exec, error) {
	if e, ok := sp.steps[k]; ok {
		return e, nil
	}
	cfg, d := sp.cfg, sp.d
	e, err := model.NewExec(sp.backend, model.NewStore(), func(_ *model.Scope, x, y, noise *Node) *Node {
		if sp.live {
			livevars.Mark(x.Graph())
		}
		var lo, hi *Node
		if cfg.Lower != nil && !cfg.ClampAtEnd {
			g, b := x.Graph(), x.Shape().Dimensions[0]
			lo = BroadcastToDims(Reshape(Const(g, cfg.Lower), 1, d), b, d)
			hi = BroadcastToDims(Reshape(Const(g, cfg.Upper), 1, d), b, d)
		}
		b := x.Shape().Dimensions[0]
		for i := range k {
			x = cfg.step(sp.energy, x, y, Reshape(Slice(noise, AxisElem(i)), b, d), lo, hi)
		}
		return x
	})
	if err != nil {
		return nil, fmt.Errorf("sgld: building the step graph: %w", err)
	}
	sp.steps[k] = e
	return e, nil
}

// checkChains validates x [n·D] and labels (nil = all zero) and returns n and the label slice.
func (sp *Sampler) checkChains(x []float32, y []int32) (int, []int32, error) {
	if len(x) == 0 || len(x)%sp.d != 0 {
		return 0, nil, fmt.Errorf("sgld: %d start values are not a positive whole number of rows of %d features", len(x), sp.d)
	}
	n := len(x) / sp.d
	if y == nil {
		y = make([]int32, n)
	}
	if len(y) != n {
		return 0, nil, fmt.Errorf("sgld: %d labels for %d chains", len(y), n)
	}
	return n, y, nil
}

// Run advances one chain per row of x0 (row-major, n·D values; it is not modified) for Steps steps, each
// chain conditioned on its label in y (nil: all labels 0, for unconditional energies). It returns the
// final states (n·D values) and their energies (n values). The same seed gives the same samples. ctx is
// checked between graph calls.
func (sp *Sampler) Run(ctx context.Context, x0 []float32, y []int32, seed uint64) (samples, energies []float32, err error) {
	return sp.RunGroups(ctx, x0, y, []uint64{seed})
}

// RunGroups is Run for chains in len(seeds) groups of equal size, group g's noise drawn from its own seed
// seeds[g], in one batched run: group g ends where Run of its own chains and labels with seeds[g] would
// (the noise of every step is the same; the model reads each chain on its own), so that several
// independent draws cost one graph call per block of steps instead of one per draw. The chains of x0 and
// the labels y are the groups' one after the other.
func (sp *Sampler) RunGroups(ctx context.Context, x0 []float32, y []int32, seeds []uint64) (samples, energies []float32, err error) {
	n, y, err := sp.checkChains(x0, y)
	if err != nil {
		return nil, nil, err
	}
	if len(seeds) == 0 || n%len(seeds) != 0 {
		return nil, nil, fmt.Errorf("sgld: %d chains do not split into %d groups of equal size", n, len(seeds))
	}
	rngs := make([]*rand.Rand, len(seeds))
	for g, s := range seeds {
		rngs[g] = data.NewRand(s)
	}
	per := n / len(seeds) * sp.d // the values of one group at one step
	xT := tensors.FromFlatDataAndDimensions(append([]float32(nil), x0...), n, sp.d)
	yT := tensors.FromFlatDataAndDimensions(append([]int32(nil), y...), n)
	defer func() {
		xT.MustFinalizeAll()
		yT.MustFinalizeAll()
	}()
	k := sp.cfg.stepsPerCall()
	noise := make([]float32, k*n*sp.d)
	for done := 0; done < sp.cfg.Steps; {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("sgld interrupted after %d of %d steps: %w", done, sp.cfg.Steps, err)
		}
		kk := min(k, sp.cfg.Steps-done)
		exec, err := sp.stepExec(kk)
		if err != nil {
			return nil, nil, err
		}
		// The noise is drawn in Go: pure-Go Philox in the graph is much slower than math/rand/v2's PCG.
		// Step by step, group by group: each group's generator gives its values in Run's order.
		noiseK := noise[:kk*n*sp.d]
		for i := range noiseK {
			noiseK[i] = float32(rngs[i/per%len(rngs)].NormFloat64())
		}
		noiseT := tensors.FromFlatDataAndDimensions(noiseK, kk, n, sp.d)
		xNew, err := exec.Call1(xT, yT, noiseT)
		noiseT.MustFinalizeAll()
		if err != nil {
			return nil, nil, fmt.Errorf("sgld step %d: %w", done, err)
		}
		xT.MustFinalizeAll()
		xT = xNew
		done += kk
	}
	samples = tensors.MustCopyFlatData[float32](xT)
	if sp.cfg.ClampAtEnd && sp.cfg.Lower != nil {
		for i, v := range samples {
			samples[i] = min(max(v, sp.cfg.Lower[i%sp.d]), sp.cfg.Upper[i%sp.d])
		}
	}
	energies, err = sp.Energies(samples, y)
	if err != nil {
		return nil, nil, err
	}
	return samples, energies, nil
}

// Energies evaluates the sampler's energy at the rows of x (n·D values) with labels y (nil = zeros).
func (sp *Sampler) Energies(x []float32, y []int32) ([]float32, error) {
	n, y, err := sp.checkChains(x, y)
	if err != nil {
		return nil, err
	}
	if sp.eval == nil {
		sp.eval, err = model.NewExec(sp.backend, model.NewStore(), func(_ *model.Scope, x, y *Node) *Node {
			if sp.live {
				livevars.Mark(x.Graph())
			}
			return sp.energy(x, y)
		})
		if err != nil {
			return nil, fmt.Errorf("sgld: building the energy graph: %w", err)
		}
	}
	t, err := sp.eval.Call1(tensors.FromFlatDataAndDimensions(x, n, sp.d), tensors.FromFlatDataAndDimensions(y, n))
	if err != nil {
		return nil, fmt.Errorf("sgld: evaluating energies: %w", err)
	}
	defer t.MustFinalizeAll()
	if t.DType() != dtypes.Float32 || t.Size() != n {
		return nil, fmt.Errorf("sgld: the energy returned shape %s, want [%d] float32", t.Shape(), n)
	}
	return tensors.MustCopyFlatData[float32](t), nil
}

// Sample is NewSampler + Run + Finalize: it runs one chain per row of x0 (n·D values, d features), chain i
// conditioned on y[i] (nil: all 0), and returns the final states and their energies.
func (s SGLD) Sample(ctx context.Context, backend compute.Backend, energy Energy, x0 []float32, y []int32, d int, seed uint64) (samples, energies []float32, err error) {
	sp, err := s.NewSampler(backend, energy, d)
	if err != nil {
		return nil, nil, err
	}
	defer sp.Finalize()
	return sp.Run(ctx, x0, y, seed)
}
