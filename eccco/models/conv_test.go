package models

import (
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
)

func randomF64(n int, seed uint64) []float64 {
	rng := data.NewRand(seed)
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// Im2ColConvolve, and the convolution Conv2D uses on the backend in use, must equal GoMLX's direct
// convolution, with and without padding.
func TestIm2ColEqualsConvolve(t *testing.T) {
	b := testBackend(t)
	x := tensors.FromFlatDataAndDimensions(randomF64(2*7*6*3, 1), 2, 7, 6, 3)
	k := tensors.FromFlatDataAndDimensions(randomF64(5*5*3*4, 2), 5, 5, 3, 4)
	for _, same := range []bool{false, true} {
		outs := MustExecOnceN(b, func(x, k *Node) []*Node {
			pad := 0
			ref := Convolve(x, k).NoPadding().Done()
			if same {
				pad = 2
				ref = Convolve(x, k).PadSame().Done()
			}
			return []*Node{Im2ColConvolve(x, k, pad), ref, convolve(x, k, pad)}
		}, x, k)
		got, want := tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[float64](outs[1])
		// Conv2D's choice for the backend in use (im2col on pure Go, XLA's convolution on XLA) agrees too.
		if chosen := tensors.MustCopyFlatData[float64](outs[2]); !outs[2].Shape().Equal(outs[1].Shape()) {
			t.Fatalf("same=%v: Conv2D's convolution has shape %s, want %s", same, outs[2].Shape(), outs[1].Shape())
		} else {
			for i := range want {
				if math.Abs(chosen[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("same=%v: Conv2D's convolution element %d = %v, want %v", same, i, chosen[i], want[i])
				}
			}
		}
		if !outs[0].Shape().Equal(outs[1].Shape()) {
			t.Fatalf("same=%v: shape %s, want %s", same, outs[0].Shape(), outs[1].Shape())
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("same=%v: element %d = %v, want %v", same, i, got[i], want[i])
			}
		}
	}
}

// The gradients of a scalar function of Im2ColConvolve with respect to the input and the kernel agree
// with central finite differences (float64).
func TestIm2ColGradientsMatchFiniteDifferences(t *testing.T) {
	b := testBackend(t)
	xv, kv := randomF64(2*6*5*3, 3), randomF64(3*3*3*2, 4)
	rv := randomF64(2*6*5*2, 5) // projection of the output to a scalar
	r := tensors.FromFlatDataAndDimensions(rv, 2, 6, 5, 2)
	f := func(x, k, r *Node) *Node { return ReduceAllSum(Mul(Tanh(Im2ColConvolve(x, k, 1)), r)) }
	value := MustNewExec(b, f)
	grads := MustNewExec(b, func(x, k, r *Node) []*Node { return Gradient(f(x, k, r), x, k) })
	eval := func(x, k []float64) float64 {
		out := value.MustCall(tensors.FromFlatDataAndDimensions(x, 2, 6, 5, 3), tensors.FromFlatDataAndDimensions(k, 3, 3, 3, 2), r)[0]
		return tensors.MustCopyFlatData[float64](out)[0]
	}
	g := grads.MustCall(tensors.FromFlatDataAndDimensions(xv, 2, 6, 5, 3), tensors.FromFlatDataAndDimensions(kv, 3, 3, 3, 2), r)
	gx, gk := tensors.MustCopyFlatData[float64](g[0]), tensors.MustCopyFlatData[float64](g[1])
	const h = 1e-6
	worst := 0.0
	check := func(v []float64, analytic []float64, isX bool) {
		for i := range v {
			orig := v[i]
			v[i] = orig + h
			up := eval(xv, kv)
			v[i] = orig - h
			down := eval(xv, kv)
			v[i] = orig
			fd := (up - down) / (2 * h)
			worst = max(worst, math.Abs(fd-analytic[i]))
			if math.Abs(fd-analytic[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("d/d%s[%d]: autodiff %v, finite difference %v", map[bool]string{true: "x", false: "kernel"}[isX], i, analytic[i], fd)
			}
		}
	}
	check(xv, gx, true)
	check(kv, gk, false)
	t.Logf("largest |autodiff − finite difference| = %.2g", worst)
}
