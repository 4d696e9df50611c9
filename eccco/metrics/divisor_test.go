package metrics

import (
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// The authors' metric for the ECCCo-L1 family summed the distances to the 10 samples of the family's own
// sampler and divided by 50 (UnfaithfulnessDivisor); a divisor of 20 (twice the 10 samples) halves the mean. By hand: x′ = (0, 0)
// and samples of class 1 at (k, 0), k = 1 … 10, so Σ‖x′ − s‖ = 55: 55/50 = 1.1 (mean 5.5; halved 2.75).
func TestUnfaithfulnessDivisorSumsOverTheSamples(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	var class1 []float32
	for k := 1; k <= 10; k++ {
		class1 = append(class1, float32(k), 0)
	}
	samples := &energy.TargetSamples{D: 2, Chains: 10, Samples: [][]float32{make([]float32, 20), class1}}
	train := &data.Dataset{Name: "toy", X: []float32{0, 0, 1, 0}, Y: []int{0, 1}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"n", "p"}}
	e := &Evaluator{Backend: b, Model: logistic(), Train: train, Samples: samples}
	for _, c := range []struct {
		name string
		o    Options
		want float64
	}{
		{"mean", Options{}, 5.5},
		{"÷20", Options{UnfaithfulnessDivisor: 20}, 2.75},
		{"÷50", Options{UnfaithfulnessDivisor: 50}, 1.1},
	} {
		e.Options = c.o
		got, err := e.Evaluate([]float32{-1, 0}, []float32{0, 0}, []int{1})
		if err != nil {
			t.Fatal(err)
		}
		if !near(got[0].Unfaithfulness, c.want) {
			t.Errorf("%s: unfaithfulness %v, want %v", c.name, got[0].Unfaithfulness, c.want)
		}
	}
	e.Options = Options{UnfaithfulnessDivisor: -1}
	if _, err := e.Evaluate([]float32{-1, 0}, []float32{0, 0}, []int{1}); err == nil {
		t.Error("a negative divisor gave no error")
	}
}

// EvaluateEach measures each counterfactual against samples of its own: x′ = (0, 0) against {(3, 4)} is
// 5 and against {(0, 1), (0, 3)} is 2, whatever the shared samples of the target class are; the divisor
// applies as in Evaluate (÷50 of the sum: 5/50, 4/50).
func TestEvaluateEach(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	shared := &energy.TargetSamples{D: 2, Samples: [][]float32{{9, 9}, {9, 9}}}
	train := &data.Dataset{Name: "toy", X: []float32{0, 0, 1, 0}, Y: []int{0, 1}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"n", "p"}}
	e := &Evaluator{Backend: b, Model: logistic(), Train: train, Samples: shared}
	factuals, cfs, targets := []float32{-1, 0, -1, 0}, []float32{0, 0, 0, 0}, []int{1, 1}
	own := [][]float32{{3, 4}, {0, 1, 0, 3}}
	for _, c := range []struct {
		o    Options
		want [2]float64
	}{{Options{}, [2]float64{5, 2}}, {Options{UnfaithfulnessDivisor: 50}, [2]float64{0.1, 0.08}}} {
		e.Options = c.o
		got, err := e.EvaluateEach(factuals, cfs, targets, own)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if math.Abs(got[i].Unfaithfulness-c.want[i]) > 1e-6 {
				t.Errorf("%+v row %d: unfaithfulness %v, want %v", c.o, i, got[i].Unfaithfulness, c.want[i])
			}
		}
	}
	e.Options = Options{}
	plain, err := e.Evaluate(factuals, cfs, targets)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Hypot(9, 9); math.Abs(plain[0].Unfaithfulness-want) > 1e-5 {
		t.Errorf("Evaluate: %v, want the shared samples' %v", plain[0].Unfaithfulness, want)
	}
	if _, err := e.EvaluateEach(factuals, cfs, targets, own[:1]); err == nil {
		t.Error("one set of samples for two counterfactuals: want an error")
	}
	if _, err := e.EvaluateEach(factuals, cfs, targets, [][]float32{{1}, {1, 2}}); err == nil {
		t.Error("a set that is not whole rows: want an error")
	}
	perRow := *e
	perRow.Samples = &energy.TargetSamples{Samples: shared.Samples, D: shared.D, PerRow: true}
	if _, err := perRow.Evaluate(factuals, cfs, targets); err == nil {
		t.Error("per-row samples as the per-class Samples: want an error")
	}
}
