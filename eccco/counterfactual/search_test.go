package counterfactual

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logistic is a two-class logistic regression with logits (0, w·x + c): p(1|x) = σ(w·x + c).
func logistic(w []float32, c float32) models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		g := x.Graph()
		d := x.Shape().Dimensions[1]
		a := AddScalar(MatMul(x, Reshape(Const(g, w), d, 1)), float64(c))
		return Concatenate([]*Node{ZerosLike(a), a}, 1)
	}, len(w), 2)
}

func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

// On a logistic regression the first Wachter step is x − η·∂/∂x[−log σ(w·x + c)] = x + η(1 − σ)w (the
// L1 cost has zero (sub)gradient at x′ = x), computed here by hand.
func TestFirstStepIsTheHandComputedGradientStep(t *testing.T) {
	b := testBackend(t)
	w := []float32{1.5, -2, 0.5}
	clf := logistic(w, -0.25)
	x := []float32{-1, 0.5, 0.3, -0.4, 0.8, -1.2}
	eta := 0.05
	res, err := Search(context.Background(), b, clf, Wachter(Params{StepSize: eta, Cost: 0.1}),
		Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 1, Rule: MaxIterations})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		a := -0.25
		for j := range 3 {
			a += float64(w[j] * x[i*3+j])
		}
		for j := range 3 {
			want := float64(x[i*3+j]) + eta*(1-sigmoid(a))*float64(w[j])
			if got := float64(res.X[i*3+j]); math.Abs(got-want) > 1e-6 {
				t.Errorf("row %d feature %d: %v after one step, want %v", i, j, got, want)
			}
		}
		if res.Iterations[i] != 1 || res.Converged[i] {
			t.Errorf("row %d: %d iterations, converged %v; want 1, false", i, res.Iterations[i], res.Converged[i])
		}
	}
}

// After the first step the L1 cost pulls back by η·λ·sign(x′ − x) on every moved feature: the second step
// is checked by hand too.
func TestSecondStepIncludesTheL1Subgradient(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1}
	clf := logistic(w, -1)
	x := []float32{0.2, 0.4}
	eta, lam := 0.1, 0.5
	res, err := Search(context.Background(), b, clf, Wachter(Params{StepSize: eta, Cost: lam}),
		Request{Factuals: x, Targets: []int{1}, MaxIterations: 2, Rule: MaxIterations, RecordPath: true})
	if err != nil {
		t.Fatal(err)
	}
	x1 := make([]float64, 2)
	a := -1 + 0.2 - 0.4
	for j := range 2 {
		x1[j] = float64(x[j]) + eta*(1-sigmoid(a))*float64(w[j])
	}
	a1 := -1 + x1[0] - x1[1]
	for j := range 2 {
		sign := math.Copysign(1, x1[j]-float64(x[j]))
		want := x1[j] + eta*(1-sigmoid(a1))*float64(w[j]) - eta*lam*sign
		if got := float64(res.X[j]); math.Abs(got-want) > 1e-6 {
			t.Errorf("feature %d: %v after two steps, want %v", j, got, want)
		}
	}
	if len(res.Paths[0]) != 3*2 {
		t.Errorf("path has %d values, want 3 states of 2", len(res.Paths[0]))
	}
}

func TestSchutChangesOneFeaturePerStep(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{1, -2, 0.5, 0.1}, -3)
	x := []float32{0, 0, 0, 0, 0.5, 0.5, -0.5, 0.2}
	res, err := Search(context.Background(), b, clf, Schut(Params{StepSize: 0.25}),
		Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 30, Rule: DecisionThreshold, RecordPath: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, path := range res.Paths {
		steps := len(path)/4 - 1
		if steps != res.Iterations[i] || steps == 0 {
			t.Fatalf("row %d: path of %d steps, %d iterations", i, steps, res.Iterations[i])
		}
		counts := make([]int, 4) // changes since the last reset (a reset happens once all four are frozen)
		for s := 1; s <= steps; s++ {
			changed := 0
			for j := range 4 {
				diff := math.Abs(float64(path[s*4+j] - path[(s-1)*4+j]))
				if diff > 1e-7 {
					changed++
					counts[j]++
					if math.Abs(diff-0.25) > 1e-6 {
						t.Errorf("row %d step %d: feature %d moved by %v, want η = 0.25", i, s, j, diff)
					}
					if counts[j] > 4 {
						t.Errorf("row %d step %d: feature %d changed %d times, more than n = 1/η = 4 before a reset", i, s, j, counts[j])
					}
				}
			}
			if changed != 1 {
				t.Errorf("row %d step %d: %d features changed, want exactly 1", i, s, changed)
			}
			if counts[0] == 4 && counts[1] == 4 && counts[2] == 4 && counts[3] == 4 {
				counts = make([]int, 4)
			}
		}
		if !res.Converged[i] || res.Probability[i] < 0.5 {
			t.Errorf("row %d: converged %v, p = %v", i, res.Converged[i], res.Probability[i])
		}
	}
}

// Every generator honours an immutable feature and increase/decrease constraints and the bounds, in
// feature space, PCA space (ECCCo+), a VAE's latent space (REVISE) and ECCCo-L1 alike.
func TestConstraintsHoldUnderEveryGenerator(t *testing.T) {
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 1, N: 600})
	if err != nil {
		t.Fatal(err)
	}
	m := trainMLP(t, b, split.Train, 40)
	gens := testGenerators(t, b, m, split.Train)
	fact, targets := factualsFor(t, b, m, split.Test, 40)
	lo, hi := split.Train.Bounds()
	for _, g := range gens {
		for _, mut := range []Mutability{None, Increase, Decrease} {
			req := Request{Factuals: fact, Targets: targets, Lower: lo, Upper: hi, Mutability: []Mutability{mut, Both}, MaxIterations: 50}
			res, err := Search(context.Background(), b, m, g, req)
			if err != nil {
				t.Fatalf("%s: %v", g.Name, err)
			}
			for i := range targets {
				x0, x1 := fact[i*2], res.X[i*2]
				switch {
				case mut == None && math.Abs(float64(x1-x0)) > 1e-6,
					mut == Increase && x1 < x0-1e-6,
					mut == Decrease && x1 > x0+1e-6:
					t.Fatalf("%s, feature 0 %s: factual %v, counterfactual %v", g.Name, mut, x0, x1)
				}
				for j := range 2 {
					if v := res.X[i*2+j]; v < lo[j] || v > hi[j] {
						t.Fatalf("%s: feature %d = %v outside [%v, %v]", g.Name, j, v, lo[j], hi[j])
					}
				}
			}
		}
	}
}

func TestRequestErrors(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{1, 1}, 0)
	g := Wachter(Params{StepSize: 0.1, Cost: 0.1})
	cases := []struct {
		name string
		gen  *Generator
		req  Request
		want string
	}{
		{"already target", g, Request{Factuals: []float32{1, 1}, Targets: []int{1}}, "already predicted"},
		{"feature count", g, Request{Factuals: []float32{1, 1, 1}, Targets: []int{0}}, "whole rows"},
		{"NaN", g, Request{Factuals: []float32{float32(math.NaN()), 1}, Targets: []int{0}}, "NaN"},
		{"target range", g, Request{Factuals: []float32{1, 1}, Targets: []int{2}}, "not a class"},
		{"negative λ", &Generator{Name: "bad", StepSize: 0.1, Penalties: []Penalty{{Name: "cost", Weight: -1, Term: L1Cost}}}, Request{Factuals: []float32{-1, -1}, Targets: []int{1}}, "non-negative"},
		{"zero η", &Generator{Name: "bad", StepSize: 0}, Request{Factuals: []float32{-1, -1}, Targets: []int{1}}, "step size"},
		{"mutability count", g, Request{Factuals: []float32{-1, -1}, Targets: []int{1}, Mutability: []Mutability{None}}, "mutability"},
	}
	for _, c := range cases {
		_, err := Search(context.Background(), b, clf, c.gen, c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	if _, err := paperGenerator("ECCCo", Params{StepSize: 0.1}, Ingredients{}); err == nil || !strings.Contains(err.Error(), "calibrated") {
		t.Errorf("ECCCo without calibration: err = %v", err)
	}
}

func trainMLP(t testing.TB, b compute.Backend, ds *data.Dataset, epochs int) *models.Model {
	t.Helper()
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: ds.D(), NumClasses: ds.K(), Hidden: 32, Layers: 2, Activation: "relu", Members: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Train(context.Background(), b, m, ds, models.TrainOptions{Epochs: epochs, BatchSize: 64, LearningRate: 0.01, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return m
}

// factualsFor picks up to n test rows with target = the other class than predicted (binary data).
func factualsFor(t testing.TB, b compute.Backend, m models.Classifier, ds *data.Dataset, n int) ([]float32, []int) {
	t.Helper()
	pred, err := models.Predict(b, m, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	var x []float32
	var y []int
	for i := 0; i < ds.N() && len(y) < n; i++ {
		x = append(x, ds.Row(i)...)
		y = append(y, (pred[i]+1)%ds.K())
	}
	return x, y
}

func testGenerators(t testing.TB, b compute.Backend, m models.Classifier, train *data.Dataset) []*Generator {
	t.Helper()
	p, in := testIngredients(t, b, m, train)
	var gens []*Generator
	for _, name := range paperNames() {
		g, err := paperGenerator(name, p, in)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
	}
	return gens
}

// testIngredients returns moons' parameters and the ingredients of testGenerators.
func testIngredients(t testing.TB, b compute.Backend, m models.Classifier, train *data.Dataset) (Params, Ingredients) {
	t.Helper()
	p := testRows["moons"].params
	fit, cal, err := conformal.SplitCalibration(train, 0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	_ = fit
	c, err := conformal.Calibrate(b, m, cal, conformal.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pca, err := FitPCA(train, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Stand-in SGLD samples: training rows of each class (the penalty's wiring, not the sampler, is tested).
	ts := &energy.TargetSamples{D: train.D()}
	for _, idx := range train.ClassIndices() {
		var rows []float32
		for _, r := range idx[:5] {
			rows = append(rows, train.Row(r)...)
		}
		ts.Samples = append(ts.Samples, rows)
	}
	spec := vae.Spec{NumFeatures: train.D(), Latent: 2, Hidden: 32, Activation: vae.DefaultActivation, Dataset: "moons"} // the paper's for moons
	v, err := vae.New(b, spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	vopts := vae.TrainOptions{Epochs: 10, BatchSize: vae.DefaultBatchSize, LearningRate: vae.DefaultLearningRate, L2: vae.DefaultL2}
	if _, err := vae.Train(context.Background(), b, v, train, vopts); err != nil {
		t.Fatal(err)
	}
	return p, Ingredients{Calibrated: c, PCA: pca, Samples: ts, VAE: v}
}

// The same seed gives byte-identical counterfactuals, SGLD samples of ECCCo-L1 included.
func TestSearchIsDeterministic(t *testing.T) {
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 2, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	m := trainMLP(t, b, split.Train, 20)
	fact, targets := factualsFor(t, b, m, split.Test, 30)
	p := testRows["moons"].params
	var first []float32
	for range 2 {
		sampler, err := testRows["moons"].sampler(split.Train)
		if err != nil {
			t.Fatal(err)
		}
		in, err := PaperIngredientsWith(context.Background(), b, m, "moons", split.Train, nil, 9, IngredientOptions{Latent: 2, Sampler: sampler}, Needs{Samples: true, PCA: true})
		if err != nil {
			t.Fatal(err)
		}
		g, err := paperGenerator("ECCCo-L1", p, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search(context.Background(), b, m, g, Request{Factuals: fact, Targets: targets, MaxIterations: 30})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.X
			continue
		}
		for i := range first {
			if first[i] != res.X[i] {
				t.Fatalf("value %d differs between two runs with the same seed: %v vs %v", i, first[i], res.X[i])
			}
		}
	}
}
