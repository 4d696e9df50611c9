package counterfactual

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// whileDescent runs n gradient steps x ← x − η·∂f/∂x on f(x) = Σ (w·x)² in a While on the test's
// backend, w a model variable: with grad, the body takes the Gradient; without, it writes it out,
// 2w²x. With capture, the main function reads w first and the body uses that node (a closure capturing a
// value of its parent); without, w is a constant of the body.
func whileDescent(t *testing.T, grad, capture bool, x0 []float32, w, eta float32, n int) ([]float32, error) {
	t.Helper()
	store := model.NewStore()
	store.RootScope().VariableWithValue("w", w)
	exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, x *Node) []*Node {
		g := x.Graph()
		var wMain *Node
		if capture {
			wMain = scope.GetVariable("w").NodeValue(g)
		}
		cond := NewClosure(g, func(g *Graph) []*Node {
			it := Parameter(g, "it", shapes.Make(dtypes.Int32))
			_ = Parameter(g, "x", x.Shape())
			return []*Node{LessThan(it, Const(g, int32(n)))}
		})
		body := NewClosure(g, func(g *Graph) []*Node {
			it := Parameter(g, "it", shapes.Make(dtypes.Int32))
			x := Parameter(g, "x", x.Shape())
			wb := Const(g, w)
			if capture {
				wb = wMain
			}
			var d *Node
			if grad {
				d = Gradient(ReduceAllSum(Square(Mul(x, wb))), x)[0]
			} else {
				d = Mul(Mul(x, Const(g, float32(2))), Mul(wb, wb))
			}
			return []*Node{Add(it, Const(g, int32(1))), Sub(x, Mul(d, Const(g, eta)))}
		})
		return []*Node{While(cond, body, Const(g, int32(0)), x)[1]}
	})
	if err != nil {
		return nil, err
	}
	defer exec.Finalize()
	outs, err := exec.Call(tensors.FromFlatDataAndDimensions(x0, len(x0)))
	if err != nil {
		return nil, err
	}
	defer outs[0].MustFinalizeAll()
	return tensors.MustCopyFlatData[float32](outs[0]), nil
}

// The search runs searchChunk unrolled steps per graph call, not one While over all steps, because GoMLX
// (v0.28.5 to v0.28.16) cannot host the step in a While: the pure-Go backend fails to execute a
// Gradient inside a While body, and XLA (go-xla v0.4.4; checked again with -tags xla) lets no closure read a node of the enclosing
// function, where the model's weights are. Each case that runs must give the closed form
// x₀·(1 − 2ηw²)ⁿ; the test fails once both run, the sign that a While can replace the chunks.
func TestWhileLimits(t *testing.T) {
	x0 := []float32{1, -2, 3}
	const w, eta, n = float32(0.5), float32(0.1), 7
	factor := math.Pow(1-2*float64(eta)*float64(w)*float64(w), n)
	run := func(name string, grad, capture bool) error {
		got, err := whileDescent(t, grad, capture, x0, w, eta, n)
		if err != nil {
			t.Logf("%s: %v", name, err)
			return err
		}
		for i, v := range x0 {
			if want := float64(v) * factor; math.Abs(float64(got[i])-want) > 1e-5 {
				t.Errorf("%s: x[%d] = %v, want %v", name, i, got[i], want)
			}
		}
		return nil
	}
	if err := run("written-out gradient, constant weight", false, false); err != nil {
		t.Fatalf("a While without a Gradient or a capture failed: %v", err)
	}
	gradErr := run("Gradient in the body", true, false)
	captureErr := run("a weight read by the main function", false, true)
	if gradErr == nil && captureErr == nil {
		t.Errorf("backend %s runs both a Gradient in a While body and a captured weight: the search's chunks (searchChunk) could become one While",
			testBackend(t).Name())
	}
}
