package counterfactual

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// runSelect builds fn over float32 inputs [b, d] (and, with cond, a float32 row flag [b]: > 0 holds) and
// runs it once per input set, returning every output's values.
func runSelect(t *testing.T, b, d int, fn func(x, y, cond *Node) []*Node, sets [][3][]float32) [][][]float32 {
	t.Helper()
	exec, err := model.NewExec(testBackend(t), model.NewStore(), func(_ *model.Scope, in []*Node) []*Node {
		return fn(in[0], in[1], GreaterThan(in[2], ScalarZero(in[2].Graph(), in[2].DType())))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	var all [][][]float32
	for _, s := range sets {
		outs, err := exec.Call(tensors.FromFlatDataAndDimensions(s[0], b, d),
			tensors.FromFlatDataAndDimensions(s[1], b, d), tensors.FromFlatDataAndDimensions(s[2], b))
		if err != nil {
			t.Fatal(err)
		}
		var vals [][]float32
		for _, o := range outs {
			vals = append(vals, tensors.MustCopyFlatData[float32](o))
			o.MustFinalizeAll()
		}
		all = append(all, vals)
	}
	return all
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestZeroNaNs checks zeroNaNs element by element against IEEE 754: NaN becomes +0, everything else keeps
// its bits (−0, infinities, subnormals), with and without NaNs, and where infinities of both signs make
// the sum NaN although no element is.
func TestZeroNaNs(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	sub := math.Float32frombits(1) // the smallest subnormal
	sets := [][3][]float32{
		{{1, nan, -2, float32(math.Copysign(0, -1)), inf, nan}, make([]float32, 6), make([]float32, 2)},
		{{1, -inf, inf, 3, sub, -0.5}, make([]float32, 6), make([]float32, 2)},
		{{1, 2, 3, float32(math.Copysign(0, -1)), sub, -1e30}, make([]float32, 6), make([]float32, 2)},
	}
	got := runSelect(t, 2, 3, func(x, _, _ *Node) []*Node { return []*Node{zeroNaNs(x)} }, sets)
	for i, s := range sets {
		for j, v := range s[0] {
			want := v
			if v != v {
				want = 0
			}
			if g := got[i][0][j]; !sameBits(g, want) {
				t.Errorf("input %d, element %d: zeroNaNs(%v) = %v (bits %#x), want %v (bits %#x)", i, j, v, g,
					math.Float32bits(g), want, math.Float32bits(want))
			}
		}
	}
}

// TestWhereRows checks whereRows row by row where every row, no row and some rows hold, over repeated
// calls of one compiled graph.
func TestWhereRows(t *testing.T) {
	const b, d = 4, 3
	x, y := make([]float32, b*d), make([]float32, b*d)
	for i := range x {
		x[i], y[i] = float32(i+1), -float32(i+1)
	}
	conds := [][]float32{{1, 1, 1, 1}, {0, 0, 0, 0}, {1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 1, 1}}
	var sets [][3][]float32
	for _, c := range conds {
		sets = append(sets, [3][]float32{x, y, c})
	}
	got := runSelect(t, b, d, func(x, y, cond *Node) []*Node { return []*Node{whereRows(cond, x, y)} }, sets)
	for i, c := range conds {
		for r := range b {
			for j := range d {
				want := y[r*d+j]
				if c[r] > 0 {
					want = x[r*d+j]
				}
				if g := got[i][0][r*d+j]; g != want {
					t.Errorf("condition %v, row %d, column %d: %v, want %v", c, r, j, g, want)
				}
			}
		}
	}
}

// TestShortcutReadsReleasedOnce is the case that made shortcut's branches read every value: values that
// only the general branch needs, at their last use in the If, followed by results that need new buffers
// of the same size. If the If released those values twice, two of the later results would share one
// buffer and the sums below would be wrong.
func TestShortcutReadsReleasedOnce(t *testing.T) {
	const b, d = 64, 256
	x, y := make([]float32, b*d), make([]float32, b*d)
	for i := range x {
		x[i], y[i] = float32(i%97)/97, float32(i%89)/89
	}
	mixed, all := make([]float32, b), make([]float32, b)
	for r := range b {
		mixed[r], all[r] = float32(r%2), 1
	}
	sets := [][3][]float32{{x, y, mixed}, {x, y, all}, {x, y, mixed}}
	got := runSelect(t, b, d, func(x, y, cond *Node) []*Node {
		two := Scalar(x.Graph(), x.DType(), 2)
		sel := whereRows(cond, Mul(x, two), Mul(y, two)) // both products are read by the If only
		p, q := Add(x, y), Sub(x, y)
		return []*Node{sel, Add(Mul(p, two), q), Sub(p, Mul(q, two))}
	}, sets)
	for i, s := range sets {
		for k := range b * d {
			xv, yv := x[k], y[k]
			want := 2 * yv
			if s[2][k/d] > 0 {
				want = 2 * xv
			}
			p, q := xv+yv, xv-yv
			if g := got[i][0][k]; g != want {
				t.Fatalf("set %d, element %d: selected %v, want %v", i, k, g, want)
			}
			if g1, g2 := got[i][1][k], got[i][2][k]; g1 != 2*p+q || g2 != p-2*q {
				t.Fatalf("set %d, element %d: later results %v, %v, want %v, %v", i, k, g1, g2, 2*p+q, p-2*q)
			}
		}
	}
}
