package counterfactual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// sameResult fails unless two results agree bit for bit.
func sameResult(t *testing.T, what string, want, got *Result) {
	t.Helper()
	if len(want.X) != len(got.X) || len(want.Probability) != len(got.Probability) || len(want.Paths) != len(got.Paths) {
		t.Fatalf("%s: sizes differ", what)
	}
	// Bit for bit on the pure-Go backend. XLA compiles the engine's graph and the reference's separately
	// and may fuse them differently (which depends on the CPU it runs on): there, a few float32 ulps.
	differ := func(a, b float32) bool { return math.Float32bits(a) != math.Float32bits(b) }
	if strings.HasPrefix(strings.ToLower(testBackend(t).Name()), "xla") {
		differ = func(a, b float32) bool {
			return math.Abs(float64(a)-float64(b)) > 1e-5*math.Max(1, math.Abs(float64(b)))
		}
	}
	for i := range want.X {
		if differ(want.X[i], got.X[i]) {
			t.Fatalf("%s: X[%d] = %v, want %v", what, i, got.X[i], want.X[i])
		}
	}
	for i := range want.Probability {
		if differ(want.Probability[i], got.Probability[i]) {
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
			if differ(want.Paths[i][j], got.Paths[i][j]) {
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

// A Searcher built with one run's ECCCo-L1 generator searches with another run's (other SGLD samples,
// same layout: GraphKey equal) through SearchWith exactly as a fresh search with that generator does, bit
// for bit, and back again with its own; per-row samples as well. Samples of another layout are an error.
func TestSearchWithAnotherGeneratorsSamples(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1, 0.5}
	clf := logistic(w, -0.5)
	r := rand.New(rand.NewPCG(8, 9))
	randomRows := func(n int) []float32 {
		v := make([]float32, n*3)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	perClass := func() *energy.TargetSamples {
		return &energy.TargetSamples{D: 3, Chains: 10, Samples: [][]float32{randomRows(2), randomRows(2)}}
	}
	p := Params{StepSize: 0.1, Cost: 0.2, Energy: 0.5}
	x := randomRows(12)
	pred, err := models.Predict(b, clf, x)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]int, len(pred))
	for i := range pred {
		targets[i] = 1 - pred[i]
	}
	req := Request{Factuals: x, Targets: targets, MaxIterations: 30}
	for _, name := range []string{"ECCCo-L1 (no CP)", "ECCCo-L1 (no EBM)"} {
		build := func(ts *energy.TargetSamples) (*Generator, any) {
			in := Ingredients{Samples: ts, Calibrated: &conformal.Calibrated{Clf: clf, QHat: 0.8, Opts: conformal.DefaultOptions()}}.WithAuthorsCode()
			g, err := paperGenerator(name, p, in)
			if err != nil {
				t.Fatal(err)
			}
			return g, paperSpec(name).GraphKey(p, in)
		}
		gA, keyA := build(perClass())
		gB, keyB := build(perClass())
		// (The logistic model is a FromFunc classifier, so the keys are not comparable with ==: printed.)
		if fmt.Sprint(keyA) != fmt.Sprint(keyB) {
			t.Fatalf("%s: two runs' generators have different graph keys:\n%v\n%v", name, keyA, keyB)
		}
		s, err := NewSearcher(b, clf, gA)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for pass, g := range []*Generator{gB, gA, gB, nil} {
			want := g
			if g == nil {
				want = gA
			}
			ref, err := searchReference(ctx, b, clf, want, req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.SearchWith(ctx, g, req)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, fmt.Sprintf("%s, pass %d", name, pass), ref, got)
		}
		// The samples matter (ECCCo-L1 (no CP) only: the other one's sample penalty has weight 0).
		resA, _ := s.Search(ctx, req)
		resB, _ := s.SearchWith(ctx, gB, req)
		differs := false
		for i := range resA.X {
			differs = differs || resA.X[i] != resB.X[i]
		}
		if wantDiff := name == "ECCCo-L1 (no CP)"; differs != wantDiff {
			t.Errorf("%s: the two runs' counterfactuals differ: %v, want %v", name, differs, wantDiff)
		}
		// Another step size, or another penalty weight, is an error, not a search with the old one.
		other := *gB
		other.StepSize *= 2
		if _, err := s.SearchWith(ctx, &other, req); err == nil {
			t.Errorf("%s: a generator with another step size gave no error", name)
		}
		other = *gB
		other.Penalties = append([]Penalty(nil), gB.Penalties...)
		other.Penalties[0].Weight += 0.1
		if _, err := s.SearchWith(ctx, &other, req); err == nil {
			t.Errorf("%s: a generator with another penalty weight gave no error", name)
		}
		// Another layout (3 samples per class where the graph holds 2) is an error.
		gC, keyC := build(&energy.TargetSamples{D: 3, Chains: 10, Samples: [][]float32{randomRows(3), randomRows(3)}})
		if fmt.Sprint(keyC) == fmt.Sprint(keyA) {
			t.Errorf("%s: a graph key ignores the samples' layout", name)
		}
		if _, err := s.SearchWith(ctx, gC, req); err == nil && name == "ECCCo-L1 (no CP)" {
			t.Errorf("%s: samples of another layout gave no error", name)
		}
		s.Close()
	}

	// Per-row samples (one set per factual): the same.
	rows := func() *energy.TargetSamples {
		ts := &energy.TargetSamples{D: 3, Chains: 10, PerRow: true}
		for range targets {
			ts.Samples = append(ts.Samples, randomRows(1))
		}
		return ts
	}
	in := func(ts *energy.TargetSamples) Ingredients { return Ingredients{Samples: ts}.WithAuthorsCode() }
	gA, _ := paperGenerator("ECCCo-L1 (no CP)", p, in(rows()))
	gB, _ := paperGenerator("ECCCo-L1 (no CP)", p, in(rows()))
	s, err := NewSearcher(b, clf, gA)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref, err := searchReference(context.Background(), b, clf, gB, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SearchWith(context.Background(), gB, req)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "per-row samples", ref, got)
}

// A penalty's term reads only the inputs its penalty declares, and the declared inputs must hold the
// values of their shapes: either mistake is an error, not a panic. A Searcher that searched with another
// generator's inputs at one batch size searches with its own again at every batch size.
func TestPenaltyInputs(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{1, -1, 0.5}, -0.5)
	req := Request{Factuals: []float32{-1, 1, 0, -2, 1, 1}, Targets: []int{1, 1}, MaxIterations: 5}
	undeclared := &Generator{Name: "undeclared", StepSize: 0.1, Penalties: []Penalty{{Name: "pull", Weight: 1,
		Term: func(s *State) *Node { return ReduceSum(Sub(s.X, s.Input("anchor")), -1) }}}}
	if _, err := Search(context.Background(), b, clf, undeclared, req); err == nil || !strings.Contains(err.Error(), "anchor") {
		t.Errorf("a term reading an undeclared input: err = %v", err)
	}
	bad := *undeclared
	bad.Penalties = []Penalty{{Name: "pull", Weight: 1, Term: undeclared.Penalties[0].Term, Inputs: []Input{{Name: "anchor", Values: []float32{1, 2}, Dims: []int{1, 3}}}}}
	if err := bad.Validate(); err == nil {
		t.Error("an input of 2 values of shape [1 3] is valid")
	}

	ts := func(seed uint64) *energy.TargetSamples {
		r := rand.New(rand.NewPCG(seed, 1))
		v := make([]float32, 12)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return &energy.TargetSamples{D: 3, Chains: 2, Samples: [][]float32{v[:6], v[6:]}}
	}
	p := Params{StepSize: 0.1, Cost: 0.2, Energy: 0.5}
	gA, gB := ECCCoL1NoCP(p, ts(1)), ECCCoL1NoCP(p, ts(2))
	s, err := NewSearcher(b, clf, gA)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	one := Request{Factuals: req.Factuals[:3], Targets: req.Targets[:1], MaxIterations: 5}
	ctx := context.Background()
	for pass, c := range []struct {
		g *Generator
		q Request
	}{{nil, req}, {gB, req}, {nil, one}, {nil, req}} {
		want := c.g
		if want == nil {
			want = gA
		}
		ref, err := searchReference(ctx, b, clf, want, c.q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.SearchWith(ctx, c.g, c.q)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, fmt.Sprintf("pass %d", pass), ref, got)
	}
}
