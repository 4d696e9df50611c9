package metrics

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// The authors' metric for the ECCCo-L1 family summed the distances to the 10 samples of the family's own
// sampler and divided by 50 (UnfaithfulnessDivisor), whatever HalveUnfaithfulness says. By hand: x′ = (0, 0)
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
		{"halved", Options{HalveUnfaithfulness: true}, 2.75},
		{"÷50", Options{UnfaithfulnessDivisor: 50}, 1.1},
		{"÷50 wins over halving", Options{UnfaithfulnessDivisor: 50, HalveUnfaithfulness: true}, 1.1},
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
