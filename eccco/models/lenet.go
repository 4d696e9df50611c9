package models

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// LeNet5 is the convolutional network of LeCun et al. (1998) as the paper uses it for MNIST and
// Fashion-MNIST: x is [B, 784] (28×28 grey images in [−1, 1]); conv 5×5×6 (same padding), relu, 2×2
// max-pool, conv 5×5×16 (valid), relu, 2×2 max-pool, dense 120, relu, dense 84, relu, dense numClasses.
// The convolutions are Conv2D (im2col).
func LeNet5(scope *model.Scope, x *Node, numClasses int) *Node {
	batch := x.Shape().Dimensions[0]
	x = Reshape(x, batch, 28, 28, 1) // channels-last
	x = Conv2D(scope.At("conv1"), x, 6, 5, true)
	x = MaxPool(activation.Relu(x)).Window(2).Done() // 14×14×6
	x = Conv2D(scope.At("conv2"), x, 16, 5, false)
	x = MaxPool(activation.Relu(x)).Window(2).Done() // 5×5×16
	x = Reshape(x, batch, -1)
	x = activation.Relu(layers.Dense(scope.At("dense1"), x, true, 120))
	x = activation.Relu(layers.Dense(scope.At("dense2"), x, true, 84))
	return layers.Dense(scope.At("readout"), x, true, numClasses)
}
