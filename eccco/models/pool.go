package models

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/support/exceptions"
)

// MaxPool2 is 2×2 max-pooling with stride 2 of channels-last images x [B, H, W, C] (an odd last row or
// column is dropped), the pooling of LeNet-5. It equals GoMLX's MaxPool(x).Window(2), gradient included:
// the gradient of each window goes to its first maximum in row-major order, as MaxPool's select-and-scatter
// sends it, also when several pixels tie (an MNIST digit's uniform background does, and then the choice
// matters: a plain ReduceMax would send the gradient to every tied pixel).
//
// It is built from elementwise operations on the window's four strided views: out = Σₖ qₖ·sₖ, where sₖ is
// 1 for the first view holding the window's maximum and 0 for the others, taken out of the gradient
// (StopGradient), so that the gradient with respect to qₖ is exactly sₖ times the incoming one. The sum adds
// exact zeros to the maximum, so the values are MaxPool's bit for bit. It is faster than MaxPool, whose
// gradient (select-and-scatter) is a slow operation on both backends; on XLA's CPU plugin the two agree to
// float32 rounding. A window holding NaN pools to NaN on every backend
// (XLA's own MaxPool drops it). x must be [B, H, W, C] with H, W ≥ 2.
func MaxPool2(x *Node) *Node {
	if x.Rank() != 4 || x.Shape().Dimensions[1] < 2 || x.Shape().Dimensions[2] < 2 {
		exceptions.Panicf("MaxPool2: want images [B, H, W, C] with H, W ≥ 2, got shape %s", x.Shape())
	}
	d := x.Shape().Dimensions
	b, h, w, c := d[0], d[1]/2, d[2]/2, d[3]
	if d[1]%2 != 0 || d[2]%2 != 0 {
		x = Slice(x, AxisRange(), AxisRange(0, 2*h), AxisRange(0, 2*w), AxisRange())
	}
	windows := Reshape(x, b, h, 2, w, 2, c)
	var views [4]*Node // row-major window order: (0,0), (0,1), (1,0), (1,1)
	for i := range 2 {
		for j := range 2 {
			views[2*i+j] = Reshape(Slice(windows, AxisRange(), AxisRange(), AxisElem(i), AxisRange(), AxisElem(j), AxisRange()), b, h, w, c)
		}
	}
	return firstMax(views)
}

// firstMax is the elementwise maximum of four views, in the order of MaxPool2's window, whose gradient
// goes to the first view holding it (see MaxPool2); NaN where the maximum is NaN.
func firstMax(views [4]*Node) *Node {
	x := views[0]
	best := StopGradient(Max(Max(views[0], views[1]), Max(views[2], views[3])))
	var out, taken *Node
	for _, v := range views {
		isMax := Equal(v, best)
		first := isMax
		if taken == nil {
			taken = isMax
		} else {
			first = And(isMax, LogicalNot(taken))
			taken = Or(taken, isMax)
		}
		term := Mul(v, StopGradient(ConvertDType(first, x.DType())))
		if out == nil {
			out = term
		} else {
			out = Add(out, term)
		}
	}
	// A window whose maximum is NaN matches no view: give it NaN (as pure Go's MaxPool does), not 0.
	return Where(taken, out, best)
}
