package energy

import (
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// Energy builds the per-chain energies [B] of inputs x [B, D] for chain labels y [B] (int32) in x's graph.
// It must be differentiable with respect to x. Unconditional energies ignore y (see Unconditional).
type Energy func(x, y *Node) *Node

// Unconditional adapts an energy of x alone (for instance a known Gaussian energy in tests) to Energy.
func Unconditional(f func(x *Node) *Node) Energy { return func(x, _ *Node) *Node { return f(x) } }

// ConditionalEnergy returns E(x|y) = −logit_y(x) for each row of x [B, D] and its label in y [B] (any integer
// dtype): the paper's class-conditional energy. For an ensemble (models.Model) the logits are the members'
// mean, so this is the mean member energy.
func ConditionalEnergy(clf models.Classifier, y *Node) func(x *Node) *Node {
	return func(x *Node) *Node {
		logits := clf.Logits(x)
		k := logits.Shape().Dimensions[logits.Rank()-1]
		labels := y
		if labels.DType() != dtypes.Int32 {
			labels = ConvertDType(labels, dtypes.Int32)
		}
		oneHot := OneHot(labels, k, logits.DType())
		return Neg(ReduceSum(Mul(oneHot, logits), -1))
	}
}

// ClassifierEnergy is ConditionalEnergy as an Energy: each chain is conditioned on its own label.
func ClassifierEnergy(clf models.Classifier) Energy {
	return func(x, y *Node) *Node { return ConditionalEnergy(clf, y)(x) }
}

// InputGradient returns ∇ₓE(x|y) [B, D]: the gradient of the sum of the chains' energies, which is every
// chain's own energy gradient because chains do not interact.
func InputGradient(energy Energy, x, y *Node) *Node {
	return gradientOf(energy(x, y), x, false)
}

func gradientOf(e, x *Node, batchMean bool) *Node {
	if batchMean {
		return Gradient(ReduceAllMean(e), x)[0]
	}
	return Gradient(ReduceAllSum(e), x)[0]
}
