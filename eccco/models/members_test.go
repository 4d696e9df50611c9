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
// taken), which the single model skips: the pure-Go backend copies a broadcast element by element.
func TestSingleModelSkipsTheMembersAxis(t *testing.T) {
	b := testBackend(t)
	const rows, d, k = 7, 5, 3
	m, err := New(b, Spec{Kind: KindMLP, NumFeatures: d, NumClasses: k, Hidden: 8, Layers: 2, Activation: "relu", Members: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	exec, err := model.NewExec(b, m.store, func(scope *model.Scope, x, w *Node) []*Node {
		single := m.logitsIn(scope, x)
		ensemble := ReduceMean(m.stackedLogits(scope, BroadcastPrefix(x, 1)), 0)
		return []*Node{single, ensemble,
			Gradient(ReduceAllSum(Mul(single, w)), x)[0], Gradient(ReduceAllSum(Mul(ensemble, w)), x)[0]}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	r := rand.New(rand.NewPCG(1, 2))
	x, w := make([]float32, rows*d), make([]float32, rows*k)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	out, err := exec.Call(tensors.FromFlatDataAndDimensions(x, rows, d), tensors.FromFlatDataAndDimensions(w, rows, k))
	if err != nil {
		t.Fatal(err)
	}
	for i, what := range []string{"logits", "gradient"} {
		got, want := tensors.MustCopyFlatData[float32](out[2*i]), tensors.MustCopyFlatData[float32](out[2*i+1])
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		nonzero := false
		for j := range got {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%s[%d] = %v, the ensembles' form %v", what, j, got[j], want[j])
			}
			nonzero = nonzero || got[j] != 0
		}
		if !nonzero {
			t.Errorf("%s: all zero, the comparison shows nothing", what)
		}
	}
}
