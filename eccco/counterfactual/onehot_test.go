package counterfactual

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// A model whose class 1 is the category 1 of the group (inputs 1–3): p(1|x) = σ(3·x₂ − 1), 0.27 for the
// factual (category 0) and σ(2) = 0.88 once the category is 1. Input 0 is numeric and ignored by the model.
var (
	oneHotModel    = logistic([]float32{0, 0, 3, 0}, -1)
	oneHotFactual  = []float32{0.5, 1, 0, 0}
	oneHotLo       = []float32{0, 0, 0, 0}
	oneHotHi       = []float32{1, 1, 1, 1}
	oneHotGroups   = [][]int{{1, 2, 3}}
	oneHotExpected = []float32{0.5, 0, 1, 0}
)

// isOneHot reports whether every row's group holds one 1 and zeros.
func isOneHot(x []float32, d int) bool {
	for i := 0; i < len(x); i += d {
		ones := 0
		for _, v := range x[i+1 : i+4] {
			switch v {
			case 1:
				ones++
			case 0:
			default:
				return false
			}
		}
		if ones != 1 {
			return false
		}
	}
	return true
}

func TestOneHotGroupsFlipCategory(t *testing.T) {
	b := testBackend(t)
	pca, err := FitPCA(&data.Dataset{Name: "t", X: []float32{0.5, 1, 0, 0, 0.1, 0, 1, 0, 0.9, 0, 0, 1, 0.3, 0, 1, 0, 0.7, 1, 0, 0},
		Y: []int{0, 1, 0, 1, 0}, FeatureNames: []string{"a", "g0", "g1", "g2"}, ClassNames: []string{"0", "1"}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := Params{StepSize: 0.1, Cost: 0.01}
	for _, g := range []*Generator{Wachter(p), Schut(p), {Name: "pca", StepSize: 0.1, Penalties: Wachter(p).Penalties, Latent: pca}} {
		res, err := Search(context.Background(), b, oneHotModel, g, Request{
			Factuals: oneHotFactual, Targets: []int{1}, Lower: oneHotLo, Upper: oneHotHi, OneHot: oneHotGroups,
			Rule: DecisionThreshold, MaxIterations: 200, RecordPath: true,
		})
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if !isOneHot(res.Paths[0], 4) {
			t.Errorf("%s: a step's counterfactual is not one-hot: %v", g.Name, res.Paths[0])
		}
		if !res.Converged[0] || !slices.Equal(res.X[1:], oneHotExpected[1:]) {
			t.Errorf("%s: x′ = %v after %d steps (converged %v), want category 1 %v", g.Name, res.X, res.Iterations[0], res.Converged[0], oneHotExpected)
		}
		if g.Latent == nil && res.X[0] != 0.5 {
			t.Errorf("%s: the numeric input moved to %v, its gradient is 0", g.Name, res.X[0])
		}
	}
}

func TestOneHotGroupImmutable(t *testing.T) {
	b := testBackend(t)
	res, err := Search(context.Background(), b, oneHotModel, Wachter(Params{StepSize: 0.1, Cost: 0.01}), Request{
		Factuals: oneHotFactual, Targets: []int{1}, Lower: oneHotLo, Upper: oneHotHi, OneHot: oneHotGroups,
		Mutability: []Mutability{Both, None, None, None}, Rule: DecisionThreshold, MaxIterations: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged[0] || !slices.Equal(res.X[1:], oneHotFactual[1:]) {
		t.Fatalf("an immutable category changed: x′ = %v (converged %v)", res.X, res.Converged[0])
	}
}

func TestOneHotGroupErrors(t *testing.T) {
	b := testBackend(t)
	for _, c := range []struct {
		groups [][]int
		lo     []float32
		want   string
	}{
		{[][]int{{1}}, oneHotLo, "at least 2"},
		{[][]int{{1, 3}}, oneHotLo, "contiguous"},
		{[][]int{{2, 3, 4}}, oneHotLo, "within"},
		{[][]int{{1, 2}, {2, 3}}, oneHotLo, "after the previous"},
		{oneHotGroups, []float32{0, -1, 0, 0}, "non-negative"},
	} {
		_, err := Search(context.Background(), b, oneHotModel, Wachter(Params{StepSize: 0.1, Cost: 0.01}), Request{
			Factuals: oneHotFactual, Targets: []int{1}, Lower: c.lo, Upper: oneHotHi, OneHot: c.groups,
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("groups %v: err = %v, want %q", c.groups, err, c.want)
		}
	}
}
