package models

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// A single model's logits and their gradient with respect to the inputs are, bit for bit, what the
// ensembles' form gives for one member (the inputs broadcast onto a members axis, the members' mean
// taken), which the single model skips; so is member 0's logits. Both at a small shape and at MNIST's
// (1,000 rows of 784 features, 32 hidden units), where the backend takes other matrix kernels.
func TestSingleModelSkipsTheMembersAxis(t *testing.T) {
	b := testBackend(t)
	for _, c := range []struct{ rows, d, k, hidden, layers int }{{7, 5, 3, 8, 2}, {1000, 784, 10, 32, 1}} {
		m, err := New(b, Spec{Kind: KindMLP, NumFeatures: c.d, NumClasses: c.k, Hidden: c.hidden, Layers: c.layers, Activation: "relu", Members: 1}, 3)
		if err != nil {
			t.Fatal(err)
		}
		exec, err := model.NewExec(b, m.store, func(scope *model.Scope, x, w *Node) []*Node {
			single := m.logitsIn(scope, x)
			ensemble := ReduceMean(m.stackedLogits(scope, BroadcastPrefix(x, 1)), 0)
			return []*Node{single, ensemble,
				Gradient(ReduceAllSum(Mul(single, w)), x)[0], Gradient(ReduceAllSum(Mul(ensemble, w)), x)[0],
				m.memberLogits(scope, x, 0), ensemble}
		})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		x, w := make([]float32, c.rows*c.d), make([]float32, c.rows*c.k)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		out, err := exec.Call(tensors.FromFlatDataAndDimensions(x, c.rows, c.d), tensors.FromFlatDataAndDimensions(w, c.rows, c.k))
		exec.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		for i, what := range []string{"logits", "gradient", "member 0's logits"} {
			got, want := tensors.MustCopyFlatData[float32](out[2*i]), tensors.MustCopyFlatData[float32](out[2*i+1])
			if len(got) != len(want) {
				t.Fatalf("%d×%d: %s: %d values, want %d", c.rows, c.d, what, len(got), len(want))
			}
			nonzero := false
			for j := range got {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%d×%d: %s[%d] = %v, the ensembles' form %v", c.rows, c.d, what, j, got[j], want[j])
				}
				nonzero = nonzero || got[j] != 0
			}
			if !nonzero {
				t.Errorf("%d×%d: %s: all zero, the comparison shows nothing", c.rows, c.d, what)
			}
		}
	}
}
