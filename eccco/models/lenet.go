package models

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// LeNet5 is the convolutional network of LeCun et al. (1998) as the paper uses it for MNIST and
// Fashion-MNIST: x is [B, 784] (28×28 grey images in [−1, 1]); conv 5×5×6 (same padding), relu, 2×2
// max-pool, conv 5×5×16 (valid), relu, 2×2 max-pool, dense 120, relu, dense 84, relu, dense numClasses.
// Each convolution, relu and pooling is ConvReluPool2 (Conv2D, then MaxPool2). LeNet5Same is the authors'
// variant.
func LeNet5(scope *model.Scope, x *Node, numClasses int) *Node {
	return lenet5(scope, x, numClasses, false)
}

// LeNet5Same is LeNet-5 as the authors' code built it (ECCCo.jl experiments/models/additional_models.jl,
// lenet5): both convolutions with same padding, so the second pooled map is 7×7×16 = 784 features
// (instead of 5×5×16 = 400) before the dense layer of 120. Spec.Conv2Padding = "same" selects it.
func LeNet5Same(scope *model.Scope, x *Node, numClasses int) *Node {
	return lenet5(scope, x, numClasses, true)
}

// LeNet-5's second-convolution paddings (Spec.Conv2Padding).
const (
	PaddingValid = "valid"
	PaddingSame  = "same"
)

func conv2Same(padding string) (bool, error) {
	switch padding {
	case "", PaddingValid:
		return false, nil
	case PaddingSame:
		return true, nil
	}
	return false, fmt.Errorf("model spec: LeNet-5 second-convolution padding %q (want valid or same)", padding)
}

func lenet5(scope *model.Scope, x *Node, numClasses int, same2 bool) *Node {
	batch := x.Shape().Dimensions[0]
	x = Reshape(x, batch, 28, 28, 1)                      // channels-last
	x = ConvReluPool2(scope.At("conv1"), x, 6, 5, true)   // 14×14×6
	x = ConvReluPool2(scope.At("conv2"), x, 16, 5, same2) // 5×5×16 (same: 7×7×16)
	x = Reshape(x, batch, -1)
	x = activation.Relu(layers.Dense(scope.At("dense1"), x, true, 120))
	x = activation.Relu(layers.Dense(scope.At("dense2"), x, true, 84))
	return layers.Dense(scope.At("readout"), x, true, numClasses)
}
