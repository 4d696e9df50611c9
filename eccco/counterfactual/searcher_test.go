package counterfactual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// sameResult fails unless two results agree bit for bit.
func sameResult(t *testing.T, what string, want, got *Result) {
	t.Helper()
	if len(want.X) != len(got.X) || len(want.Probability) != len(got.Probability) || len(want.Paths) != len(got.Paths) {
		t.Fatalf("%s: sizes differ", what)
	}
	for i := range want.X {
		if math.Float32bits(want.X[i]) != math.Float32bits(got.X[i]) {
			t.Fatalf("%s: X[%d] = %v, want %v", what, i, got.X[i], want.X[i])
		}
	}
	for i := range want.Probability {
		if math.Float32bits(want.Probability[i]) != math.Float32bits(got.Probability[i]) {
			t.Fatalf("%s: Probability[%d] = %v, want %v", what, i, got.Probability[i], want.Probability[i])
		}
		if want.Iterations[i] != got.Iterations[i] || want.Converged[i] != got.Converged[i] {
			t.Fatalf("%s: row %d took %d steps (converged %v), want %d (%v)", what, i, got.Iterations[i], got.Converged[i], want.Iterations[i], want.Converged[i])
		}
	}
	for i := range want.Paths {
		if len(want.Paths[i]) != len(got.Paths[i]) {
			t.Fatalf("%s: path %d has %d values, want %d", what, i, len(got.Paths[i]), len(want.Paths[i]))
		}
		for j := range want.Paths[i] {
			if math.Float32bits(want.Paths[i][j]) != math.Float32bits(got.Paths[i][j]) {
				t.Fatalf("%s: path %d value %d = %v, want %v", what, i, j, got.Paths[i][j], want.Paths[i][j])
			}
		}
	}
}

// checkAgainstReference searches every request with every generator three ways: the engine as it was
// (searchReference), Search, and one Searcher per generator shared by all requests (each searched twice,
// so that cached graphs are reused), and wants the same bits from all.
func checkAgainstReference(t *testing.T, b compute.Backend, m models.Classifier, gens []*Generator, reqs map[string]Request) {
	t.Helper()
	ctx := context.Background()
	for _, g := range gens {
		s, err := NewSearcher(b, m, g)
		if err != nil {
			t.Fatal(err)
		}
		for rep := range 2 {
			for name, req := range reqs {
				what := fmt.Sprintf("%s, %s", g.Name, name)
				want, err := searchReference(ctx, b, m, g, req)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if rep == 0 {
					got, err := Search(ctx, b, m, g, req)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					sameResult(t, what+" (Search)", want, got)
				}
				got, err := s.Search(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameResult(t, fmt.Sprintf("%s (Searcher, pass %d)", what, rep+1), want, got)
			}
		}
		s.Close()
	}
}

// The counterfactuals of Search and Searcher are those of the engine before issue 16's changes, bit for
// bit: every generator of the paper (Wachter, Schut's JSMA, REVISE's latent VAE, ECCCo and its variants)
// on moons, with and without bounds, mutability constraints (factuals outside the bounds in a blocked
// direction included), every convergence rule and recorded paths.
func TestSearcherMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and a VAE")
	}
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 1, N: 600})
	if err != nil {
		t.Fatal(err)
	}
	m := trainMLP(t, b, split.Train, 40)
	gens := testGenerators(t, b, m, split.Train)
	fact, targets := factualsFor(t, b, m, split.Test, 40)
	lo, hi := split.Train.Bounds()
	// Narrow bounds put some factuals outside them, in directions that Increase/Decrease block.
	nlo, nhi := []float32{lo[0] + 0.3*(hi[0]-lo[0]), lo[1]}, []float32{hi[0] - 0.3*(hi[0]-lo[0]), hi[1]}
	reqs := map[string]Request{
		"default":          {Factuals: fact, Targets: targets, Lower: lo, Upper: hi},
		"unbounded, paths": {Factuals: fact, Targets: targets, Rule: MaxIterations, MaxIterations: 15, RecordPath: true},
		"increase, narrow": {Factuals: fact, Targets: targets, Lower: nlo, Upper: nhi, Mutability: []Mutability{Increase, Both}, MaxIterations: 30},
		"decrease, none":   {Factuals: fact, Targets: targets, Lower: nlo, Upper: nhi, Mutability: []Mutability{Decrease, None}, MaxIterations: 30, Rule: GeneratorConditionsAll},
		"threshold, first": {Factuals: fact[:2*7], Targets: targets[:7], Lower: lo, Upper: hi, Rule: DecisionThreshold, Threshold: 0.7, MaxIterations: 40, RecordPath: true},
	}
	checkAgainstReference(t, b, m, gens, reqs)
}

// The same on a 6-feature, 3-class model (untrained: its weights do not matter here) with mixed
// constraints, for Wachter, Schut and ECCCo.
func TestSearcherMatchesReferenceTabular(t *testing.T) {
	b := testBackend(t)
	const d, k, n = 6, 3, 120
	r := rand.New(rand.NewPCG(4, 5))
	ds := &data.Dataset{Name: "random", ClassNames: []string{"a", "b", "c"}}
	for i := range n {
		ds.FeatureNames = ds.FeatureNames[:0]
		for j := range d {
			ds.X = append(ds.X, float32(r.NormFloat64()))
			ds.FeatureNames = append(ds.FeatureNames, fmt.Sprint("f", j))
		}
		ds.Y = append(ds.Y, i%k)
	}
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: d, NumClasses: k, Hidden: 16, Layers: 2, Activation: "relu", Members: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	c, err := conformal.Calibrate(b, m, ds, conformal.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p := Params{StepSize: 0.1, Cost: 0.1, SetSize: 0.2, Energy: 0.3}
	pred, err := models.Predict(b, m, ds.X[:30*d])
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]int, 30)
	for i := range targets {
		targets[i] = (pred[i] + 1 + i%2) % k
	}
	fact := ds.X[:30*d]
	lo, hi := make([]float32, d), make([]float32, d)
	for j := range d {
		lo[j], hi[j] = -1, 1.2
	}
	mut := []Mutability{Both, None, Increase, Decrease, Both, Increase}
	reqs := map[string]Request{
		"default":      {Factuals: fact, Targets: targets, Lower: lo, Upper: hi, MaxIterations: 40},
		"constraints":  {Factuals: fact, Targets: targets, Lower: lo, Upper: hi, Mutability: mut, MaxIterations: 40, RecordPath: true},
		"unbounded":    {Factuals: fact, Targets: targets, Mutability: mut, Rule: MaxIterations, MaxIterations: 10},
		"conditions+":  {Factuals: fact, Targets: targets, Lower: lo, Upper: hi, Rule: GeneratorConditionsAll, GradientTol: 0.05, MaxIterations: 40},
		"one row only": {Factuals: fact[:d], Targets: targets[:1], Lower: lo, Upper: hi, Mutability: mut},
	}
	checkAgainstReference(t, b, m, []*Generator{Wachter(p), Schut(p), ECCCo(p, c)}, reqs)
}

// A Searcher reads the model's weights when it runs: after more training, its counterfactuals are those
// of the retrained model, not of the weights its graphs were compiled with.
func TestSearcherSeesNewWeights(t *testing.T) {
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 3, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	m := trainMLP(t, b, split.Train, 2)
	fact, targets := factualsFor(t, b, m, split.Test, 20)
	g := Wachter(Params{StepSize: 0.05, Cost: 0.1})
	req := Request{Factuals: fact, Targets: targets, Rule: MaxIterations, MaxIterations: 20}
	s, err := NewSearcher(b, m, g)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Train(context.Background(), b, m, split.Train, models.TrainOptions{Epochs: 3, BatchSize: 64, LearningRate: 0.01, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	pred, err := models.Predict(b, m, fact)
	if err != nil {
		t.Fatal(err)
	}
	for i := range targets {
		targets[i] = (pred[i] + 1) % 2
	}
	want, err := searchReference(context.Background(), b, m, g, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "after training", want, got)
	same := true
	for i := range before.X {
		same = same && before.X[i] == got.X[i]
	}
	if same {
		t.Fatal("the counterfactuals did not change with the model's weights")
	}
}
