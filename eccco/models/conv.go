package models

import (
	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

// Conv2D is a 2-D convolution layer (stride 1) for channels-last images x [B, H, W, C]: a k×k kernel
// [k, k, C, out] ("weights", He-initialised) and a bias [out] ("biases", zero) in scope. With same = true
// the input is zero-padded so the output keeps H×W; otherwise only positions where the kernel fits are
// kept ("valid"). On GoMLX's pure-Go backend it computes the convolution as one matrix product over image
// patches (Im2ColConvolve), which gives the same values as the backend's direct convolution; on XLA it
// uses XLA's own convolution (the same function up to float rounding), which is faster there and much
// faster to compile.
func Conv2D(scope *model.Scope, x *Node, out, k int, same bool) *Node {
	c := x.Shape().Dimensions[3]
	w := scope.VariableWithShape("weights", shapes.Make(x.DType(), k, k, c, out)).NodeValue(x.Graph())
	b := scope.VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(x.Graph())
	pad := 0
	if same {
		pad = (k - 1) / 2
	}
	return Add(convolve(x, w, pad), Reshape(b, 1, 1, 1, out))
}

// convolve is Im2ColConvolve on the pure-Go backend and XLA's convolution on XLA.
func convolve(x, kernel *Node, pad int) *Node {
	if !backend.IsXLA(x.Graph().Backend()) {
		return Im2ColConvolve(x, kernel, pad)
	}
	return Convolve(x, kernel).PaddingPerDim([][2]int{{pad, pad}, {pad, pad}}).Done()
}

// Im2ColConvolve convolves channels-last images x [B, H, W, C] with a kernel [kh, kw, C, O] (stride 1,
// zero padding of pad pixels on each side) by gathering every kh×kw×C patch into a row and multiplying by
// the kernel reshaped to [kh·kw·C, O]. It equals graph.Convolve(x, kernel) with the same padding.
func Im2ColConvolve(x, kernel *Node, pad int) *Node {
	if pad > 0 {
		zero := ScalarZero(x.Graph(), x.DType())
		x = Pad(x, zero, compute.PadAxis{}, compute.PadAxis{Start: pad, End: pad}, compute.PadAxis{Start: pad, End: pad}, compute.PadAxis{})
	}
	kd := kernel.Shape().Dimensions
	kh, kw, c, o := kd[0], kd[1], kd[2], kd[3]
	xd := x.Shape().Dimensions
	outH, outW := xd[1]-kh+1, xd[2]-kw+1
	patches := make([]*Node, 0, kh*kw)
	for i := range kh {
		for j := range kw {
			patches = append(patches, Slice(x, AxisRange(), AxisRange(i, i+outH), AxisRange(j, j+outW), AxisRange()))
		}
	}
	cols := Concatenate(patches, -1) // [B, outH, outW, kh·kw·C], patch index (i·kw + j)·C + channel
	return Einsum("bhwk,ko->bhwo", cols, Reshape(kernel, kh*kw*c, o))
}
