package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
)

// The convolution over 2×2 blocks must give MaxPool2(relu(x ⋆ kernel + bias)) computed with
// Im2ColConvolve (equal to GoMLX's direct convolution, TestIm2ColEqualsConvolve, with gradients checked
// against finite differences, TestIm2ColGradientsMatchFiniteDifferences) — values and the gradients with respect to the input, the kernel and the bias — for
// same and valid padding, one and several channels, even and odd convolution outputs (MaxPool2 drops an
// odd last row), and windows whose pixels tie (the gradient must go to the first of them).
func TestSpaceToDepthConvReluPool2EqualsComposition(t *testing.T) {
	b := testBackend(t)
	cases := []struct {
		bs, h, w, c, k, o int
		same, ties        bool
	}{
		{2, 8, 8, 1, 5, 3, true, false},    // LeNet-5's first block, small
		{2, 10, 8, 3, 5, 4, false, false},  // its second block (paper: valid)
		{1, 14, 14, 6, 5, 16, true, false}, // the authors' second block (same), full size
		{2, 6, 6, 2, 3, 2, true, false},
		{1, 8, 6, 2, 4, 3, true, false},   // same with an even kernel: odd output, last row dropped
		{1, 12, 8, 1, 5, 2, false, false}, // valid: 8×4 outputs
		{2, 8, 8, 1, 5, 3, true, true},    // every window's four pixels tie
	}
	for _, c := range cases {
		name := fmt.Sprintf("%dx%dx%d k%d→%d same=%v ties=%v", c.h, c.w, c.c, c.k, c.o, c.same, c.ties)
		xv := randomF64(c.bs*c.h*c.w*c.c, 11)
		kv := randomF64(c.k*c.k*c.c*c.o, 12)
		if c.ties {
			// A kernel with one tap (its centre, weight 1) on channel 0 of x, whose 2×2 blocks are
			// constant: the four convolution outputs of each window are equal.
			for i := range kv {
				kv[i] = 0
			}
			for o := range c.o {
				kv[((c.k/2*c.k+c.k/2)*c.c)*c.o+o] = 1
			}
			orig := append([]float64(nil), xv...)
			for bi := range c.bs {
				for i := range c.h {
					for j := range c.w {
						xv[((bi*c.h+i)*c.w+j)*c.c] = math.Abs(orig[((bi*c.h+i/2*2)*c.w+j/2*2)*c.c]) + 0.5
					}
				}
			}
		}
		bv := randomF64(c.o, 13)
		x := tensors.FromFlatDataAndDimensions(xv, c.bs, c.h, c.w, c.c)
		k := tensors.FromFlatDataAndDimensions(kv, c.k, c.k, c.c, c.o)
		bias := tensors.FromFlatDataAndDimensions(bv, c.o)
		pad := 0
		if c.same {
			pad = (c.k - 1) / 2
		}
		ref := func(x, k, bias *Node) *Node {
			// Not graph.Convolve: with an even kernel (k = 4, padding 1) its input gradient disagrees with
			// finite differences in GoMLX v0.28.5, where Im2ColConvolve's and the block form's agree.
			y := Im2ColConvolve(x, k, pad)
			return MaxPool2(activation.Relu(Add(y, Reshape(bias, 1, 1, 1, c.o))))
		}
		blocks := func(x, k, bias *Node) *Node { return SpaceToDepthConvReluPool2(x, k, bias, c.same) }
		var results [2][]*tensors.Tensor
		for i, f := range []func(x, k, bias *Node) *Node{ref, blocks} {
			results[i] = MustExecOnceN(b, func(x, k, bias *Node) []*Node {
				if !SpaceToDepthFits(x, c.k, c.same) {
					t.Fatalf("%s: SpaceToDepthFits says no", name)
				}
				y := f(x, k, bias)
				r := Sin(Iota(x.Graph(), y.Shape(), 3)) // a fixed projection to a scalar
				return append([]*Node{y}, Gradient(ReduceAllSum(Mul(y, r)), x, k, bias)...)
			}, x, k, bias)
		}
		for j, what := range []string{"value", "input gradient", "kernel gradient", "bias gradient"} {
			want, got := results[0][j], results[1][j]
			if !got.Shape().Equal(want.Shape()) {
				t.Fatalf("%s: %s has shape %s, want %s", name, what, got.Shape(), want.Shape())
			}
			wv, gv := tensors.MustCopyFlatData[float64](want), tensors.MustCopyFlatData[float64](got)
			for i := range wv {
				if math.Abs(gv[i]-wv[i]) > 1e-12*(1+math.Abs(wv[i])) {
					t.Fatalf("%s: %s element %d = %v, want %v", name, what, i, gv[i], wv[i])
				}
			}
		}
		if c.ties {
			// The input gradient of a tied window sits on its top-left pixel only.
			gx := tensors.MustCopyFlatData[float64](results[1][1])
			for i := range c.h {
				for j := range c.w {
					if g := gx[(i*c.w+j)*c.c]; (i%2 != 0 || j%2 != 0) && g != 0 {
						t.Fatalf("%s: gradient %v at pixel (%d, %d), not the window's first", name, g, i, j)
					}
				}
			}
		}
	}
}

// Odd image sizes do not fit the block form; ConvReluPool2 then takes Conv2D and MaxPool2.
func TestSpaceToDepthFits(t *testing.T) {
	g := NewGraph(testBackend(t), "fits")
	for _, c := range []struct {
		h, w, k int
		same    bool
		want    bool
	}{
		{28, 28, 5, true, true}, {14, 14, 5, false, true}, {7, 8, 3, true, false}, {8, 7, 3, true, false},
		{4, 4, 5, false, false}, // no output at all
		{6, 6, 5, false, true},  // a 2×2 output, one pooled pixel
	} {
		x := Parameter(g, fmt.Sprintf("x%d", c.h*100+c.w), shapes.Make(dtypes.Float32, 1, c.h, c.w, 1))
		if got := SpaceToDepthFits(x, c.k, c.same); got != c.want {
			t.Errorf("SpaceToDepthFits(%d×%d, k=%d, same=%v) = %v, want %v", c.h, c.w, c.k, c.same, got, c.want)
		}
	}
}

// A shape the block form cannot take is a clear panic at graph construction, not a wrong result.
func TestSpaceToDepthConvReluPool2RejectsOddImages(t *testing.T) {
	g := NewGraph(testBackend(t), "odd")
	x := Parameter(g, "x", shapes.Make(dtypes.Float32, 1, 7, 8, 1))
	k := Parameter(g, "k", shapes.Make(dtypes.Float32, 5, 5, 1, 2))
	b := Parameter(g, "b", shapes.Make(dtypes.Float32, 2))
	defer func() {
		if recover() == nil {
			t.Fatal("a 7×8 image was accepted")
		}
	}()
	SpaceToDepthConvReluPool2(x, k, b, true)
}
