package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestDistancesOnHandValues(t *testing.T) {
	if got := Euclidean([]float32{0, 0}, []float32{3, 4}); got != 5 {
		t.Errorf("Euclidean 3-4-5: %v", got)
	}
	x := []float32{0, 0}
	set := []float32{3, 4, 6, 8, 0, 1}
	if got, _ := MeanDistance(x, set, Euclidean, 0); !near(got, 16.0/3) {
		t.Errorf("mean distance %v, want (5+10+1)/3", got)
	}
	if got, _ := MeanDistance(x, set, Euclidean, 2); !near(got, 3) {
		t.Errorf("mean over the 2 nearest %v, want (1+5)/2", got)
	}
	if _, err := MeanDistance(x, set[:3], Euclidean, 0); err == nil {
		t.Error("a partial row gave no error")
	}
	f := []float32{1, 2, 3, 4}
	cf := []float32{1, 2.5, 3, 2}
	if got := Cost(cf, f); !near(got, 2.5) {
		t.Errorf("cost %v, want 0.5 + 2", got)
	}
	if got := Redundancy(cf, f, DefaultRedundancyTol); got != 0.5 {
		t.Errorf("redundancy %v, want 2 of 4 unchanged", got)
	}
}

// logistic has logits (0, x₁ + x₂): p(1|x) = σ(x₁ + x₂).
func logistic() models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		a := ReduceSum(x, -1)
		a = ExpandAxes(a, -1)
		return Concatenate([]*Node{ZerosLike(a), a}, 1)
	}, 2, 2)
}

func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

// Every metric of two counterfactuals of a logistic model against hand-computed values, with and without
// the authors'-code switches.
func TestEvaluatorOnHandValues(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	clf := logistic()
	train := &data.Dataset{Name: "toy", X: []float32{0, 0, 1, 0, 0, 3, 4, 3}, Y: []int{0, 1, 1, 1},
		FeatureNames: []string{"a", "b"}, ClassNames: []string{"n", "p"}}
	samples := &energy.TargetSamples{D: 2, Samples: [][]float32{{-1, -1}, {1, 1, 2, 2}}}
	qHat, temp := 0.9, 0.1
	cal := &conformal.Calibrated{Clf: clf, QHat: qHat, Opts: conformal.Options{Alpha: 0.05, Temperature: temp, Kappa: 1}}
	factuals := []float32{-1, -1, -2, 0}
	cfs := []float32{1, 0, -2, 0.5} // row 0: p(1) = σ(1) valid; row 1: p(1) = σ(−1.5) not valid
	targets := []int{1, 1}
	omega := func(a float64) float64 { // Ω for logits (0, a), target irrelevant
		p1 := sigmoid(a)
		c := sigmoid((qHat-(1-p1))/temp) + sigmoid((qHat-p1)/temp)
		return math.Max(0, c-1)
	}
	e := &Evaluator{Backend: b, Model: clf, Calibrated: cal, Train: train, Samples: samples}
	got, err := e.Evaluate(factuals, cfs, targets)
	if err != nil {
		t.Fatal(err)
	}
	d := func(a, b, c, d float64) float64 { return math.Hypot(a-c, b-d) }
	want := []Scores{
		{Unfaithfulness: (d(1, 0, 1, 1) + d(1, 0, 2, 2)) / 2, Implausibility: (d(1, 0, 1, 0) + d(1, 0, 0, 3) + d(1, 0, 4, 3)) / 3,
			Uncertainty: omega(1), Cost: 3, Redundancy: 0, Probability: sigmoid(1), Valid: true},
		{Unfaithfulness: (d(-2, 0.5, 1, 1) + d(-2, 0.5, 2, 2)) / 2, Implausibility: (d(-2, 0.5, 1, 0) + d(-2, 0.5, 0, 3) + d(-2, 0.5, 4, 3)) / 3,
			Uncertainty: omega(-1.5), Cost: 0.5, Redundancy: 0.5, Probability: sigmoid(-1.5), Valid: false},
	}
	check := func(tag string, got, want []Scores) {
		for i := range want {
			g, w := got[i], want[i]
			if !near(g.Unfaithfulness, w.Unfaithfulness) || !near(g.Implausibility, w.Implausibility) || !near(g.Uncertainty, w.Uncertainty) ||
				!near(g.Cost, w.Cost) || !near(g.Redundancy, w.Redundancy) || !near(g.Probability, w.Probability) || g.Valid != w.Valid {
				t.Errorf("%s row %d:\n got %+v\nwant %+v", tag, i, g, w)
			}
		}
	}
	check("paper", got, want)
	if want[1].Uncertainty == 0 {
		t.Fatal("the invalid row's Ω should be positive for the gating check to mean something")
	}

	e.Options = AuthorsOptions()
	e.Options.ImplausibilityNearest = 2
	got, err = e.Evaluate(factuals, cfs, targets)
	if err != nil {
		t.Fatal(err)
	}
	want[0].Unfaithfulness *= 2.0 / AuthorsUnfaithfulnessDivisor // the sum over the 2 samples, divided by 50
	want[1].Unfaithfulness *= 2.0 / AuthorsUnfaithfulnessDivisor
	want[0].Implausibility = (d(1, 0, 1, 0) + d(1, 0, 0, 3)) / 2
	want[1].Implausibility = (d(-2, 0.5, 1, 0) + d(-2, 0.5, 0, 3)) / 2
	want[1].Uncertainty = 0 // gated: p < 0.5
	check("authors' code", got, want)

	if _, err := e.Evaluate(factuals, cfs[:2], targets); err == nil {
		t.Error("mismatched lengths gave no error")
	}
	if _, err := e.Evaluate(factuals, cfs, []int{1, 5}); err == nil {
		t.Error("a bad target gave no error")
	}
}

// TestMeanOfNearestMatchesSort checks the selection behind MeanDistance's nearest against the plain
// definition — sort every distance, sum the first k in ascending order — bit for bit, on random sets with
// many ties, sorted and reversed inputs, and NaNs.
func TestMeanOfNearestMatchesSort(t *testing.T) {
	reference := func(ds []float64, k int) float64 {
		c := append([]float64(nil), ds...)
		sort.Float64s(c)
		var s float64
		for _, v := range c[:k] {
			s += v
		}
		return s / float64(k)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 2000 {
		n := 2 + rng.IntN(300)
		ds := make([]float64, n)
		for i := range ds {
			switch trial % 4 {
			case 0:
				ds[i] = rng.Float64()
			case 1:
				ds[i] = float64(rng.IntN(5)) // many ties
			case 2:
				ds[i] = float64(i) // already sorted
			default:
				ds[i] = float64(n - i) // reversed
			}
		}
		if trial%97 == 0 {
			ds[rng.IntN(n)] = math.NaN()
		}
		k := 1 + rng.IntN(n-1)
		want := reference(ds, k)
		got := meanOf(append([]float64(nil), ds...), k)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d (n %d, k %d): meanOf = %v, sorting gives %v", trial, n, k, got, want)
		}
	}
	// The selection itself: the k smallest first.
	v := []float64{5, 1, 4, 1, 3, 9, 2, 6}
	selectSmallest(v, 3)
	first := append([]float64(nil), v[:3]...)
	sort.Float64s(first)
	if !slices.Equal(first, []float64{1, 1, 2}) {
		t.Errorf("selectSmallest(…, 3) put %v first, want 1, 1, 2", v[:3])
	}
}
