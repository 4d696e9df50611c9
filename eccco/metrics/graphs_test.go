package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// An evaluator that keeps its graphs (Graphs) scores exactly as one that compiles them in every call,
// call after call, with one probability and one Ω graph per model and calibration; another q̂ is another
// Ω graph, not the first one's.
func TestEvaluatorKeptGraphsScoreTheSame(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	const d = 4
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: d, NumClasses: 3, Hidden: 8, Layers: 1, Activation: "relu", Members: 1}, 5)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	rows := func(n int) []float32 {
		v := make([]float32, n*d)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	train := &data.Dataset{Name: "toy", X: rows(30), FeatureNames: []string{"a", "b", "c", "d"}, ClassNames: []string{"x", "y", "z"}}
	for i := range 30 {
		train.Y = append(train.Y, i%3)
	}
	graphs := &models.Graphs{}
	defer graphs.Close()
	for call, qHat := range []float64{0.7, 0.7, 0.9} {
		cal := &conformal.Calibrated{Clf: m, QHat: qHat, Opts: conformal.DefaultOptions()}
		fresh := &Evaluator{Backend: b, Model: m, Calibrated: cal, Train: train}
		kept := &Evaluator{Backend: b, Model: m, Calibrated: cal, Train: train, Graphs: graphs}
		factuals, cfs := rows(12), rows(12)
		targets := make([]int, 12)
		for i := range targets {
			targets[i] = i % 3
		}
		want, err := fresh.Evaluate(factuals, cfs, targets)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kept.Evaluate(factuals, cfs, targets)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			w, g := want[i], got[i]
			if math.Float64bits(w.Uncertainty) != math.Float64bits(g.Uncertainty) || math.Float64bits(w.Probability) != math.Float64bits(g.Probability) ||
				w.Valid != g.Valid || w.Implausibility != g.Implausibility || w.Cost != g.Cost {
				t.Fatalf("call %d (q̂ %v), row %d: kept graphs scored %+v, fresh ones %+v", call, qHat, i, g, w)
			}
		}
	}
	if n := graphs.Len(); n != 3 {
		t.Errorf("%d graphs kept, want 3 (probabilities, Ω at q̂ 0.7, Ω at q̂ 0.9)", n)
	}
}
