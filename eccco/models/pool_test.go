package models

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
)

// poolAndGradient returns pool(x) and the gradient of Σ pool(x)·w with respect to x.
func poolAndGradient(t *testing.T, pool func(*Node) *Node, x, w *tensors.Tensor) (out, grad []float32) {
	t.Helper()
	exec, err := NewExec(testBackend(t), func(x, w *Node) (*Node, *Node) {
		p := pool(x)
		return p, Gradient(ReduceAllSum(Mul(p, w)), x)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	res, err := exec.Exec(x, w)
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](res[0]), tensors.MustCopyFlatData[float32](res[1])
}

// A 4×4 image with ties, pooled and differentiated by hand: the gradient goes to each window's first
// maximum in row-major order.
func TestMaxPool2ByHand(t *testing.T) {
	x := tensors.FromFlatDataAndDimensions([]float32{
		1, 3, 2, 2,
		3, 0, 2, 2,
		-1, -1, 5, 4,
		-1, -2, 6, 6,
	}, 1, 4, 4, 1)
	w := tensors.FromFlatDataAndDimensions([]float32{10, 20, 30, 40}, 1, 2, 2, 1)
	out, grad := poolAndGradient(t, MaxPool2, x, w)
	wantOut := []float32{3, 2, -1, 6}
	// Window (0,0): 3 at (0,1) and (1,0), first is (0,1). Window (0,1): all 2, first is (0,2).
	// Window (1,0): −1 at (2,0), (2,1) and (3,0), first is (2,0). Window (1,1): 6 at (3,2) and (3,3).
	wantGrad := []float32{
		0, 10, 20, 0,
		0, 0, 0, 0,
		30, 0, 0, 0,
		0, 0, 40, 0,
	}
	for i := range wantOut {
		if out[i] != wantOut[i] {
			t.Fatalf("MaxPool2 = %v, want %v", out, wantOut)
		}
	}
	for i := range wantGrad {
		if grad[i] != wantGrad[i] {
			t.Fatalf("gradient = %v, want %v", grad, wantGrad)
		}
	}
}

// MaxPool2 against GoMLX's MaxPool(x).Window(2) on images with many ties and an odd width: the same
// values and the same gradient, bit for bit.
func TestMaxPool2MatchesMaxPool(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const b, h, wd, c = 3, 6, 7, 2
	xs := make([]float32, b*h*wd*c)
	for i := range xs {
		xs[i] = float32(rng.IntN(4)) - 1 // four values: most windows tie
		if rng.IntN(3) == 0 {
			xs[i] = rng.Float32()
		}
	}
	ws := make([]float32, b*(h/2)*(wd/2)*c)
	for i := range ws {
		ws[i] = rng.Float32()*2 - 1
	}
	x := tensors.FromFlatDataAndDimensions(xs, b, h, wd, c)
	w := tensors.FromFlatDataAndDimensions(ws, b, h/2, wd/2, c)
	gotOut, gotGrad := poolAndGradient(t, MaxPool2, x, w)
	wantOut, wantGrad := poolAndGradient(t, func(x *Node) *Node { return MaxPool(x).Window(2).Done() }, x, w)
	// The input must tie: count the windows whose maximum is held by more than one pixel.
	ties := 0
	for n := range b {
		for i := range h / 2 {
			for j := range wd / 2 {
				for k := range c {
					at := func(di, dj int) float32 { return xs[((n*h+2*i+di)*wd+2*j+dj)*c+k] }
					m := max(at(0, 0), at(0, 1), at(1, 0), at(1, 1))
					held := 0
					for _, v := range []float32{at(0, 0), at(0, 1), at(1, 0), at(1, 1)} {
						if v == m {
							held++
						}
					}
					if held > 1 {
						ties++
					}
				}
			}
		}
	}
	if ties < 10 {
		t.Fatalf("only %d tied windows: the test checks too little", ties)
	}
	for i := range wantOut {
		if gotOut[i] != wantOut[i] {
			t.Fatalf("value %d: MaxPool2 %v, MaxPool %v", i, gotOut[i], wantOut[i])
		}
	}
	for i := range wantGrad {
		if gotGrad[i] != wantGrad[i] {
			t.Fatalf("gradient %d: MaxPool2 %v, MaxPool %v", i, gotGrad[i], wantGrad[i])
		}
	}
	if len(gotGrad) != len(xs) {
		t.Fatalf("%d gradient values for %d inputs", len(gotGrad), len(xs))
	}
}

// A window holding NaN pools to NaN, not to 0 (a diverged chain must not look fine); pure Go's MaxPool does
// the same, XLA CPU's reduce-window drops the NaN. A shape that is no batch of images is an error, not a
// panic out of the graph.
func TestMaxPool2NaNAndBadShape(t *testing.T) {
	nan := float32(math.NaN())
	x := tensors.FromFlatDataAndDimensions([]float32{nan, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2, 1)
	w := tensors.FromFlatDataAndDimensions([]float32{1, 1}, 2, 1, 1, 1)
	got, _ := poolAndGradient(t, MaxPool2, x, w)
	if !math.IsNaN(float64(got[0])) || got[1] != 7 {
		t.Fatalf("MaxPool2 = %v, want [NaN 7]", got)
	}
	exec, err := NewExec(testBackend(t), func(x *Node) *Node { return MaxPool2(x) })
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	if _, err := exec.Exec(tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4}, 2, 2)); err == nil {
		t.Fatal("MaxPool2 of a [2, 2] matrix ran; want an error")
	}
}
