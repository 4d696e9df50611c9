package models

import (
	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// ConvReluPool2 is LeNet-5's block MaxPool2(relu(Conv2D(scope, x, out, k, same))), with Conv2D's weights
// ("weights" [k, k, C, out], "biases" [out]) in scope. On GoMLX's pure-Go backend it is exactly that
// composition. On XLA it computes the same function as one convolution over 2×2 pixel blocks
// (SpaceToDepthConvReluPool2), which XLA's CPU convolution runs several times faster than a convolution
// with LeNet-5's one input channel: the values agree to float rounding, and the gradient goes to the same
// pixel of each pooling window.
func ConvReluPool2(scope *model.Scope, x *Node, out, k int, same bool) *Node {
	if !backend.IsXLA(x.Graph().Backend()) || !SpaceToDepthFits(x, k, same) {
		return MaxPool2(activation.Relu(Conv2D(scope, x, out, k, same)))
	}
	c := x.Shape().Dimensions[3]
	w := scope.VariableWithShape("weights", shapes.Make(x.DType(), k, k, c, out)).NodeValue(x.Graph())
	b := scope.VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(x.Graph())
	return SpaceToDepthConvReluPool2(x, w, b, same)
}

// SpaceToDepthFits reports whether SpaceToDepthConvReluPool2 takes channels-last images x [B, H, W, C]
// with a k×k kernel: H and W even, and at least one pooled output row and column.
func SpaceToDepthFits(x *Node, k int, same bool) bool {
	d := x.Shape().Dimensions
	if x.Rank() != 4 || d[1]%2 != 0 || d[2]%2 != 0 || k < 1 {
		return false
	}
	pad := 0
	if same {
		pad = (k - 1) / 2
	}
	return (d[1]+2*pad-k+1)/2 >= 1 && (d[2]+2*pad-k+1)/2 >= 1
}

// SpaceToDepthConvReluPool2 computes MaxPool2(relu(x ⋆ kernel + bias)) for channels-last images x
// [B, H, W, C] (H, W even; SpaceToDepthFits), a stride-1 kernel [k, k, C, O] with zero padding (k−1)/2
// (same) or none (valid) and a bias [O], without forming the full-resolution convolution.
//
// The image is cut into 2×2 blocks, each block's four pixels becoming channels (space to depth: [B, H/2,
// W/2, 4C]), and the kernel is rearranged into a kernel over blocks, [kb, kb, 4C, 4O] (kb = 3 for k = 5),
// whose output channel (a·2 + b)·O + o is output channel o at pixel (a, b) of the pooling window: one
// convolution yields the four pixels of every window side by side, and the pooling is a maximum over the
// four groups of channels. Every entry of the block kernel is one weight or zero (an exact product with a
// constant 0/1 matrix), so its gradient reaches the weights unchanged. The pooling's gradient goes to the
// first maximum of each window in row-major order, as MaxPool2's does.
//
// Why: XLA's CPU convolution is slow for few channels, and over blocks LeNet-5's first convolution has 4
// input channels instead of 1.
func SpaceToDepthConvReluPool2(x, kernel, bias *Node, same bool) *Node {
	kd := kernel.Shape().Dimensions
	if kernel.Rank() != 4 || kd[0] != kd[1] || !SpaceToDepthFits(x, kd[0], same) || kd[2] != x.Shape().Dimensions[3] ||
		bias.Rank() != 1 || bias.Shape().Dimensions[0] != kd[3] {
		exceptions.Panicf("SpaceToDepthConvReluPool2: want images [B, H, W, C] with H, W even, a kernel [k, k, C, O] and a bias [O], got %s, %s and %s",
			x.Shape(), kernel.Shape(), bias.Shape())
	}
	xd := x.Shape().Dimensions
	bs, h, w, c := xd[0], xd[1], xd[2], xd[3]
	k, o := kd[0], kd[3]
	pad := 0
	if same {
		pad = (k - 1) / 2
	}
	// Output pixel i = 2I + a reads input pixel 2I + a + u − pad, in block I + ⌊(a + u − pad)/2⌋.
	lo, hi := floorDiv2(-pad), floorDiv2(k-pad)
	kb := hi - lo + 1
	outH, outW := (h+2*pad-k+1)/2, (w+2*pad-k+1)/2 // pooled rows and columns
	hb, wb := h/2, w/2
	padH := [2]int{-lo, max(0, outH-1+hi-(hb-1))}
	padW := [2]int{-lo, max(0, outW-1+hi-(wb-1))}

	blocks := Reshape(x, bs, hb, 2, wb, 2, c)
	blocks = Reshape(TransposeAllAxes(blocks, 0, 1, 3, 2, 4, 5), bs, hb, wb, 4*c) // channel (r·2 + s)·C + ch

	// sel[(p, q, r·2+s, a·2+b), (u, v)] = 1 when input pixel (r, s) of block offset (p, q) meets output
	// pixel (a, b) through kernel tap (u, v): u = 2(p + lo) + r − a + pad.
	sel := make([]float32, kb*kb*4*4*k*k)
	for p := range kb {
		for q := range kb {
			for r := range 2 {
				for s := range 2 {
					for a := range 2 {
						for b := range 2 {
							u, v := 2*(p+lo)+r-a+pad, 2*(q+lo)+s-b+pad
							if u < 0 || u >= k || v < 0 || v >= k {
								continue
							}
							row := ((p*kb+q)*4+r*2+s)*4 + a*2 + b
							sel[row*k*k+u*k+v] = 1
						}
					}
				}
			}
		}
	}
	g := x.Graph()
	selN := ConvertDType(Const(g, sel), x.DType())
	selN = Reshape(selN, kb*kb*16, k*k)
	bk := Dot(selN, Reshape(kernel, k*k, c*o)).Product() // [(p, q, rs, ab), (ch, o)]
	bk = Reshape(bk, kb, kb, 4, 4, c, o)                 // p, q, rs, ab, ch, o
	bk = TransposeAllAxes(bk, 0, 1, 2, 4, 3, 5)          // p, q, rs, ch, ab, o
	bk = Reshape(bk, kb, kb, 4*c, 4*o)                   // channel in (rs)·C + ch, out (ab)·O + o
	y := Convolve(blocks, bk).PaddingPerDim([][2]int{padH, padW}).Done()
	y = Slice(y, AxisRange(), AxisRange(0, outH), AxisRange(0, outW), AxisRange())
	y = Reshape(y, bs, outH, outW, 4, o)
	y = activation.Relu(Add(y, Reshape(bias, 1, 1, 1, 1, o)))
	var views [4]*Node
	for ab := range 4 {
		views[ab] = Reshape(Slice(y, AxisRange(), AxisRange(), AxisRange(), AxisElem(ab), AxisRange()), bs, outH, outW, o)
	}
	return firstMax(views)
}

// floorDiv2 is ⌊n/2⌋ for negative n too.
func floorDiv2(n int) int {
	if n < 0 {
		return -((1 - n) / 2)
	}
	return n / 2
}
