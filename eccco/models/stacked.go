package models

import (
	"math"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// StackedDense applies M independent dense layers at once: x [M, B, in] → [M, B, out], with weights
// [M, in, out] and biases [M, 1, out] in scope ("weights", "biases"). One batched matrix product serves
// all members, instead of M separate ones. Weights are He-initialised with fan-in `in` (GoMLX's default
// initialiser would read a rank-3 shape as a convolution kernel and shrink the scale by √M); biases start
// at zero. A single member may also be given its rows alone, x [B, in] → [B, out] (the same weights
// [1, in, out]): the same values without a members axis on the rows.
func StackedDense(scope *model.Scope, x *Node, out int) *Node {
	g, dims := x.Graph(), x.Shape().Dimensions
	members, in := 1, dims[len(dims)-1]
	if len(dims) == 3 {
		members = dims[0]
	}
	store := scope.Store()
	w := scope.WithInitializer(func(g *Graph, shape shapes.Shape) *Node {
		return MulScalar(store.RandomNormal(g, shape), math.Sqrt(2/float64(max(in, 1))))
	}).VariableWithShape("weights", shapes.Make(x.DType(), members, in, out)).NodeValue(g)
	b := scope.WithInitializer(func(g *Graph, shape shapes.Shape) *Node { return Zeros(g, shape) }).
		VariableWithShape("biases", shapes.Make(x.DType(), members, 1, out)).NodeValue(g)
	if len(dims) == 2 {
		return Add(Einsum("bi,io->bo", x, Reshape(w, in, out)), Reshape(b, 1, out))
	}
	return Add(Einsum("mbi,mio->mbo", x, w), b)
}

// StackedMLP is M multi-layer perceptrons of the same architecture evaluated side by side: x [M, B, D]
// (member m reads x[m]) → logits [M, B, numClasses]. Each of the numLayers hidden layers has hidden units
// and the given activation. With M = 1 it is the plain MLP of the paper, and x may be its rows alone
// [B, D] (→ [B, numClasses]; see StackedDense).
func StackedMLP(scope *model.Scope, x *Node, hidden, numLayers int, act activation.Type, numClasses int) *Node {
	for i := range numLayers {
		x = activation.Apply(act, StackedDense(scope.At("hidden%d", i), x, hidden))
	}
	return StackedDense(scope.At("readout"), x, numClasses)
}
