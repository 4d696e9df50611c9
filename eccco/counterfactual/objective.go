package counterfactual

import (
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/internal/stats"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/ml/model"
)

// State is what a loss or penalty sees at one search step, all for a batch of B rows in one graph.
type State struct {
	// X is the counterfactual x′ = f(z) [B, D] after clamping and mutability projection.
	X *Node
	// Factual is x [B, D].
	Factual *Node
	// Target is y⁺ [B] (int32).
	Target *Node
	// Logits are M(x′) [B, K].
	Logits *Node
	// Model is the classifier being explained.
	Model models.Classifier
	// Step is the index t of the search step (0, 1, …), a float32 scalar, for the terms of a Stepwise
	// generator (nil for others); 0 in an objective field (ObjectiveField), which has no steps.
	Step *Node

	inputs     []Input      // the inputs of the penalty whose term is being built (Penalty.eval)
	penalty    int          // its index in the generator's Penalties
	inputScope *model.Scope // a Searcher's variables holding the inputs (nil: constants)
}

// Term is a per-row quantity [B] of the objective: the loss or one penalty.
type Term func(s *State) *Node

// Penalty is a weighted term of the objective: Weight·Term(s), Weight ≥ 0.
type Penalty struct {
	Name   string
	Weight float64
	Term   Term
	// Inputs are the data Term reads through State.Input (nil: none). They are declared here, not made
	// inside the term, so that a Searcher knows them without building a graph: its compiled graphs read
	// them as inputs, and SearchWith feeds them another generator's values.
	Inputs []Input
}

// CrossEntropy is the default yloss: −log softmax(M(x′))[y⁺].
func CrossEntropy(s *State) *Node {
	k := s.Logits.Shape().Dimensions[1]
	return Neg(ReduceSum(Mul(OneHot(s.Target, k, s.Logits.DType()), LogSoftmax(s.Logits)), -1))
}

// L1Cost is the paper's cost: ‖x′ − x‖₁. Its gradient at x′_j = x_j is 0 (the subgradient sign(0), as in
// the authors' Julia code), so the first step from the factual is not pulled in any direction.
func L1Cost(s *State) *Node { return ReduceSum(absZeroGrad(Sub(s.X, s.Factual)), -1) }

// absZeroGrad is |v| with gradient sign(v), 0 at v = 0 (GoMLX's Abs has gradient 1 there).
func absZeroGrad(v *Node) *Node { return Mul(v, StopGradient(Sign(v))) }

// WeightedL1Cost returns Σ_j w_j·|x′_j − x_j|; with w_j = 1/(MAD_j + 1e-5) it is the Wachter cost of the
// authors' code (see MADWeights).
func WeightedL1Cost(w []float32) Term {
	return func(s *State) *Node {
		d := s.X.Shape().Dimensions
		wn := BroadcastToDims(ConvertDType(Reshape(Const(s.X.Graph(), w), 1, d[1]), s.X.DType()), d[0], d[1])
		return ReduceSum(Mul(absZeroGrad(Sub(s.X, s.Factual)), wn), -1)
	}
}

// MADWeights returns 1/(MAD_j + D·1e-5) per feature, MAD_j the median absolute deviation of feature j in
// ds and D its number of features: the weights of the authors' Wachter cost (CounterfactualExplanations.jl's
// distance_mad adds size(X, 1)·1e-5, and its X is features × rows). A feature that more than half of the
// rows share (many integer-coded ones: 11 of German Credit's 20) has MAD 0 and weight 1/(D·1e-5).
func MADWeights(ds *data.Dataset) ([]float32, error) {
	if ds == nil || ds.N() == 0 {
		return nil, fmt.Errorf("mad weights: empty data set")
	}
	d, n := ds.D(), ds.N()
	col := make([]float64, n)
	w := make([]float32, d)
	for j := range d {
		for i := range n {
			col[i] = float64(ds.X[i*d+j])
		}
		med := stats.Median(col)
		for i := range n {
			col[i] = math.Abs(col[i] - med)
		}
		w[j] = float32(1 / (stats.Median(col) + float64(d)*1e-5))
	}
	return w, nil
}

// EnergyPenalty is ECCCo's energy constraint: E(x′|y⁺) + ridge·E(x′|y⁺)², with E = −logit_{y⁺}
// (ensembles: the mean logit). The paper's ridge is 0 except German Credit (0.5).
func EnergyPenalty(ridge float64) Term {
	return func(s *State) *Node {
		k := s.Logits.Shape().Dimensions[1]
		e := Neg(ReduceSum(Mul(OneHot(s.Target, k, s.Logits.DType()), s.Logits), -1))
		if ridge == 0 {
			return e
		}
		return Add(e, MulScalar(Square(e), ridge))
	}
}

// DecayedEnergyPenalty is EnergyPenalty(ridge) multiplied at step t by ϕ_t = exp(−rate·t) when t is a
// multiple of every, and by 1 otherwise: the non-monotone decay of ECCCo.jl's energy_delta
// (src/penalties.jl:74-82, ϕ = exp(−decay[1]·t) if t % decay[2] == 0). See Params.DecayRate.
func DecayedEnergyPenalty(ridge, rate float64, every int) Term {
	plain := EnergyPenalty(ridge)
	return func(s *State) *Node {
		e := plain(s)
		t := ConvertDType(s.Step, e.DType())
		on := Equal(Sub(t, MulScalar(Floor(DivScalar(t, float64(every))), float64(every))), ScalarZero(t.Graph(), t.DType()))
		phi := Where(on, Exp(MulScalar(t, -rate)), ScalarOne(t.Graph(), t.DType()))
		return Mul(e, phi)
	}
}

// SetSizePenalty is ECCCo's smooth set size Ω(C_θ(x′; α)) of a calibrated classifier (package
// conformal); with gated set, Ω is zeroed where p(y⁺|x′) < 0.5 (the authors' code, compatibility only).
// c must wrap the classifier being explained.
func SetSizePenalty(c *conformal.Calibrated, gated bool) Term {
	return func(s *State) *Node {
		opts := c.Opts
		logits := c.OmegaLogits(s.X, s.Logits)
		omega := conformal.SmoothSetSize(logits, c.QHat, opts.Temperature, opts.Kappa)
		if opts.EmptySetRule {
			omega = conformal.SmoothSetSizeEmptyRule(logits, c.QHat, opts.Temperature, opts.Kappa)
		}
		if gated {
			omega = conformal.GateBelowHalf(omega, s.Logits, s.Target)
		}
		return omega
	}
}

// DistanceToSamples is the penalty of ECCCo-L1 (appendix, Algorithm 3): the mean L1 distance from x′
// to the SGLD samples of its target class, ts (energy.SampleTargets draws them), or, when ts.PerRow, to
// the samples drawn for its own row (energy.SampleEach; the batch must then have len(ts.Samples) rows).
// It reads the samples as its penalty's input SamplesInput(ts) (samplesPenalty pairs the two).
func DistanceToSamples(ts *energy.TargetSamples) Term { return distanceToSamples(ts, 1) }

// DistanceToSamplesAuthors is ECCCo-L1's penalty as the authors' code computed it (ECCCo.jl's
// distance_from_energy, src/penalties.jl:93-134): the L1 distances to the n samples of ts summed and
// divided by the number of chains drawn, ts.Chains, not by n. The authors' generator kept the single
// lowest-energy sample of 10 chains (ts = TargetSamples.Lowest(1) of energy.AuthorsL1ClassOptions), so
// its penalty is ‖x′ − s₀‖₁/10. Like DistanceToSamples, it reads SamplesInput(ts).
func DistanceToSamplesAuthors(ts *energy.TargetSamples) Term {
	scale := 1.0
	if ts.Chains > 0 {
		scale = float64(ts.Kept()) / float64(ts.Chains)
	}
	return distanceToSamples(ts, scale)
}

// SamplesInput is the input "samples" that DistanceToSamples and DistanceToSamplesAuthors read: the sets
// of ts, one a row, of shape [len(ts.Samples), n·D].
func SamplesInput(ts *energy.TargetSamples) Input {
	k, d := len(ts.Samples), ts.D
	n := len(ts.Samples[0]) / d
	flat := make([]float32, 0, k*n*d)
	for _, v := range ts.Samples {
		flat = append(flat, v...)
	}
	return Input{Name: "samples", Values: flat, Dims: []int{k, n * d}}
}

// samplesPenalty is ECCCo-L1's penalty "samples" of weight w with its input: DistanceToSamples, or
// DistanceToSamplesAuthors when authors is set.
func samplesPenalty(w float64, ts *energy.TargetSamples, authors bool) Penalty {
	term := DistanceToSamples(ts)
	if authors {
		term = DistanceToSamplesAuthors(ts)
	}
	return Penalty{Name: "samples", Weight: w, Term: term, Inputs: []Input{SamplesInput(ts)}}
}

func distanceToSamples(ts *energy.TargetSamples, scale float64) Term {
	return func(s *State) *Node {
		k, d := len(ts.Samples), ts.D
		n := len(ts.Samples[0]) / d
		all := ConvertDType(s.Input("samples"), s.X.DType())
		target := s.Target
		if target.DType() != dtypes.Int32 {
			target = ConvertDType(target, dtypes.Int32)
		}
		b := s.X.Shape().Dimensions[0]
		var mine *Node
		if ts.PerRow {
			if k != b {
				panic(fmt.Errorf("counterfactual: %d sets of samples per counterfactual for a batch of %d rows", k, b))
			}
			mine = Reshape(all, b, n, d) // row i's own samples
		} else {
			mine = Reshape(Gather(all, Reshape(target, b, 1)), b, n, d) // [B, n, D]: the target class's
		}
		x := BroadcastToDims(Reshape(s.X, b, 1, d), b, n, d)
		mean := ReduceMean(ReduceSum(absZeroGrad(Sub(x, mine)), -1), -1)
		if scale != 1 {
			mean = MulScalar(mean, scale)
		}
		return mean
	}
}

// MeanEnergy returns the mean conditional energy E(x′|y⁺) = −logit_{y⁺}(x′) of rows x (row-major) with
// their targets: lower means the counterfactuals sit where the model expects its target class.
func MeanEnergy(backend compute.Backend, clf models.Classifier, x []float32, targets []int) (float64, error) {
	logits, err := models.Logits(backend, clf, x)
	if err != nil {
		return 0, err
	}
	k := clf.NumClasses()
	if len(logits) != len(targets)*k {
		return 0, fmt.Errorf("mean energy: %d logits for %d targets of %d classes", len(logits), len(targets), k)
	}
	var sum float64
	for i, t := range targets {
		sum -= float64(logits[i*k+t])
	}
	return sum / float64(len(targets)), nil
}
