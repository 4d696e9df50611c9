package conformal

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

func checkTemperature(t float64) {
	if !(t > 0) || math.IsInf(t, 0) {
		panic(fmt.Sprintf("conformal: temperature %v, must be positive and finite", t))
	}
}

// NonconformityScores returns s_k = 1 − softmax_k(logits), shape [B, K], for logits of shape [B, K].
func NonconformityScores(logits *Node) *Node {
	return OneMinus(Softmax(logits, -1))
}

// setLogits returns z_k = (q̂ − s_k)/T, [B, K]: the log-odds of the soft assignment C_k = σ(z_k).
func setLogits(logits *Node, qHat, temperature float64) *Node {
	checkTemperature(temperature)
	return DivScalar(AddScalar(Neg(NonconformityScores(logits)), qHat), temperature)
}

// SoftAssignment returns C_k = σ((q̂ − s_k)/T), shape [B, K]: the smooth probability that class k is in
// the prediction set (Stutz et al., 2022). It panics if T ≤ 0.
func SoftAssignment(logits *Node, qHat, temperature float64) *Node {
	return Sigmoid(setLogits(logits, qHat, temperature))
}

// HardSetSize returns |{k : s_k ≤ q̂}| per row, shape [B], in the dtype of logits (not differentiable).
// Hard sets computed in Go by PredictionSets use float64 arithmetic and may differ on ties.
func HardSetSize(logits *Node, qHat float64) *Node {
	s := NonconformityScores(logits)
	in := LessOrEqual(s, Scalar(logits.Graph(), s.DType(), qHat))
	return ReduceSum(ConvertDType(in, s.DType()), -1)
}

// SmoothSetSize returns Ω = max(0, Σ_k σ((q̂ − s_k)/T) − κ) per row, shape [B], for logits of shape
// [B, K] (ECCCo paper, Eq. "setsize"; Stutz et al., 2022). It is differentiable in the logits (and so in
// the inputs they were computed from) except on the kink Σ_k C_k = κ. It panics if T ≤ 0.
func SmoothSetSize(logits *Node, qHat, temperature, kappa float64) *Node {
	size := ReduceSum(SoftAssignment(logits, qHat, temperature), -1)
	return MaxScalar(SubScalar(size, kappa), 0.0)
}

// SmoothSetSizeEmptyRule is SmoothSetSize with the empty-set rule of ConformalPrediction.jl's
// smooth_size_loss (v0.1.12 src/conformal_models/ConformalTraining/losses.jl:60-70; a compatibility
// switch, not the paper's formula): for rows whose hard set
// {k : s_k ≤ q̂} is empty, Ω = max(0, Σ_k (1 − C_k) − κ); other rows are as in SmoothSetSize. The
// empty-set indicator is piecewise constant and carries no gradient.
func SmoothSetSizeEmptyRule(logits *Node, qHat, temperature, kappa float64) *Node {
	c := SoftAssignment(logits, qHat, temperature)
	full := ReduceSum(c, -1)
	inverted := ReduceSum(OneMinus(c), -1)
	empty := Equal(StopGradient(HardSetSize(logits, qHat)), ScalarZero(logits.Graph(), logits.DType()))
	return MaxScalar(SubScalar(Where(empty, inverted, full), kappa), 0.0)
}

// GateBelowHalf reproduces a quirk of the ECCCo authors' code (a compatibility switch, not the paper's
// formula): the smooth set size omega [B] is set to 0 for rows whose predicted probability of the target
// class, softmax(logits)[target], is below 0.5. target holds class indices, shape [B] (any integer dtype).
// The gate carries no gradient.
func GateBelowHalf(omega, logits, target *Node) *Node {
	k := logits.Shape().Dimensions[logits.Rank()-1]
	p := ReduceSum(Mul(Softmax(logits, -1), OneHot(target, k, logits.DType())), -1)
	open := GreaterOrEqual(StopGradient(p), Scalar(logits.Graph(), logits.DType(), 0.5))
	return Where(open, omega, ZerosLike(omega))
}

// LossForm selects the form of the configurable classification loss.
type LossForm int

const (
	// LossStutz is Stutz et al. (2022), Eq. 6: Σ_k L_{y,k} [(1 − C_k) 1[y = k] + C_k 1[y ≠ k]] (default).
	LossStutz LossForm = iota
	// LossLogOdds is what ConformalPrediction.jl's ConformalTraining.classification_loss computes (the
	// function the ECCCo authors' code calls): each bracketed term A_k is replaced by log(A_k/(1 − A_k)),
	// i.e. Σ_k L_{y,k} [−z_k 1[y = k] + z_k 1[y ≠ k]] with z_k = (q̂ − s_k)/T. It is linear in z and
	// unbounded.
	LossLogOdds
)

// LossOptions configure ConfigurableLoss. The zero value is the Stutz form with L = I.
type LossOptions struct {
	// Matrix is the K×K loss matrix L (row y weighs the terms for target class y). nil means the identity,
	// which makes the Stutz form the coverage loss 1 − C_y; positive off-diagonal entries L_{y,k} also
	// penalise including class k in the set of a y-labelled input (Stutz et al. use them to shape sets).
	Matrix [][]float64
	// Form selects the Stutz form (default) or ConformalPrediction.jl's log-odds form.
	Form LossForm
}

// ConfigurableLoss returns the configurable classification loss of conformal training per row, shape
// [B], for logits [B, K] and target class indices [B] (any integer dtype); see LossOptions and the
// package documentation. It is differentiable in the logits. It panics if T ≤ 0 or the matrix is not K×K.
func ConfigurableLoss(logits, target *Node, qHat, temperature float64, opts LossOptions) *Node {
	g, dt := logits.Graph(), logits.DType()
	k := logits.Shape().Dimensions[logits.Rank()-1]
	onehot := OneHot(target, k, dt) // [B, K]
	var weights *Node               // [B, K]: row y of L for each row's target
	if opts.Matrix == nil {
		weights = onehot
	} else {
		if len(opts.Matrix) != k {
			panic(fmt.Sprintf("conformal: loss matrix has %d rows, want %d", len(opts.Matrix), k))
		}
		flat := make([]float64, 0, k*k)
		for i, row := range opts.Matrix {
			if len(row) != k {
				panic(fmt.Sprintf("conformal: loss matrix row %d has %d entries, want %d", i, len(row), k))
			}
			flat = append(flat, row...)
		}
		l := ConvertDType(Reshape(Const(g, flat), k, k), dt)
		weights = Dot(onehot, l).Product()
	}
	var terms *Node
	switch opts.Form {
	case LossStutz:
		c := SoftAssignment(logits, qHat, temperature)
		terms = Add(Mul(onehot, OneMinus(c)), Mul(OneMinus(onehot), c))
	case LossLogOdds:
		z := setLogits(logits, qHat, temperature)
		terms = Mul(z, OneMinus(MulScalar(onehot, 2.0))) // −z for k = y, z for k ≠ y
	default:
		panic(fmt.Sprintf("conformal: unknown loss form %d", opts.Form))
	}
	return ReduceSum(Mul(weights, terms), -1)
}
