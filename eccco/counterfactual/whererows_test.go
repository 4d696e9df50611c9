package counterfactual

import (
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
)

// whereRows picks whole rows by a per-row condition, as written by hand here (row i of a where cond[i],
// else of b), for the state [B, D] and the counters [B, D] of a search step.
func TestWhereRowsPicksWholeRows(t *testing.T) {
	const bsz, d = 5, 3
	cond := []bool{true, false, false, true, false}
	a, b := make([]float32, bsz*d), make([]float32, bsz*d)
	for i := range a {
		a[i], b[i] = float32(i), float32(-i-1)
	}
	out, err := ExecOnce(testBackend(t), func(c, x, y *Node) *Node { return whereRows(c, x, y) },
		tensors.FromValue(cond), tensors.FromFlatDataAndDimensions(a, bsz, d), tensors.FromFlatDataAndDimensions(b, bsz, d))
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](out)
	for i := range bsz {
		for j := range d {
			want := b[i*d+j]
			if cond[i] {
				want = a[i*d+j]
			}
			if got[i*d+j] != want {
				t.Errorf("row %d, column %d: %v, want %v", i, j, got[i*d+j], want)
			}
		}
	}
}
