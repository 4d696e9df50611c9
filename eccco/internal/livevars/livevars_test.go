package livevars_test

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// A compiled graph called again after its variable was set anew: marked, it reads the new value; on a
// backend that embeds variables as constants (the pure-Go one), unmarked it keeps the value it compiled with.
func TestMarkedGraphReadsNewValues(t *testing.T) {
	b, err := backend.NewWithConfig(backend.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, mark := range []bool{true, false} {
		store := model.NewStore()
		v, err := store.RootScope().CreateVariable("w", tensors.FromValue([]float32{2}))
		if err != nil {
			t.Fatal(err)
		}
		exec, err := model.NewExec(b, store, func(scope *model.Scope, x *Node) *Node {
			if mark {
				livevars.Mark(x.Graph())
			}
			return Mul(x, scope.GetVariable("w").NodeValue(x.Graph()))
		})
		if err != nil {
			t.Fatal(err)
		}
		call := func() float32 {
			out, err := exec.Call1(tensors.FromValue([]float32{3}))
			if err != nil {
				t.Fatal(err)
			}
			return tensors.MustCopyFlatData[float32](out)[0]
		}
		if got := call(); got != 6 {
			t.Fatalf("mark %v: 3·2 = %v", mark, got)
		}
		if err := v.SetValue(tensors.FromValue([]float32{5})); err != nil {
			t.Fatal(err)
		}
		got := call()
		switch {
		case mark && got != 15:
			t.Errorf("marked graph after w = 5: 3·w = %v, want 15", got)
		case !mark && got != 15 && got != 6:
			t.Errorf("unmarked graph after w = 5: 3·w = %v, want 15 (variables fed) or 6 (embedded)", got)
		case !mark:
			t.Logf("unmarked graph after w = 5 gives %v (6: the backend embeds variables as constants)", got)
		}
		exec.Finalize()
	}
}
