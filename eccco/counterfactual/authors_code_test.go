package counterfactual

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// With MAD weights (Ingredients.WithMADWachter, what CE.jl's distance_mad meant to compute) Wachter's cost
// is weighted: the second step of a search on a logistic model pulls back by η·λ·w_j·sign(x′_j − x_j),
// computed here by hand. With the authors'-code ingredients alone (the authors' runs) the cost is the plain
// L1 distance: the same step with w_j = 1.
func TestWachterCostMADWeightedOnlyWhenAsked(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1}
	clf := logistic(w, -1)
	x := []float32{0.2, 0.4}
	eta, lam := 0.1, 0.5
	// Column a = (0, 1, 3): MAD 1; column b = (5, 5, 7): MAD 0; + D·1e-5.
	train := &data.Dataset{X: []float32{0, 5, 1, 5, 3, 7}, Y: []int{0, 1, 0}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1"}}
	mad, err := MADWeights(train)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := Ingredients{}.WithAuthorsCode().WithMADWachter(train)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   Ingredients
		w    []float32
	}{
		{"MAD-weighted", weighted, mad},
		{"authors' runs (plain L1)", Ingredients{}.WithAuthorsCode(), []float32{1, 1}},
	} {
		g, err := paperGenerator("Wachter", Params{StepSize: eta, Cost: lam}, c.in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1}, MaxIterations: 2, Rule: MaxIterations})
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
			want := x1[j] + eta*(1-sigmoid(a1))*float64(w[j]) - eta*lam*float64(c.w[j])*sign
			if got := float64(res.X[j]); math.Abs(got-want) > 1e-6*max(1, math.Abs(want)) {
				t.Errorf("%s, feature %d: %v after two steps, want %v", c.name, j, got, want)
			}
		}
	}
}

// The set-size term in authors'-code mode, checked by hand on a logistic model with q̂ = 0.2, T = 0.1, κ = 1
// over two steps of ECCCo (no EBM) without cost, each step being −η·(∂CE/∂x + λ·∂Ω/∂x):
//   - row 0 starts at p(y⁺|x) = 0.45 and crosses 0.5 after the first step; there the hard set is empty
//     (both scores exceed q̂), so the authors' rule gives Ω = Σ_k (1 − C_k) − κ = 1 − C_t − C_o > 0 and
//     its gradient enters the second step, while the paper's Ω = max(0, C_t + C_o − 1) is 0;
//   - row 1 starts at p = 0.2 and stays below 0.5, where the gate sets Ω to 0 (without the gate the
//     empty-set rule would give Ω ≈ 0.71).
func TestAuthorsSetSizeIsGatedAndFollowsTheEmptySetRule(t *testing.T) {
	b := testBackend(t)
	w := []float64{1, 0.5}
	clf := logistic([]float32{1, 0.5}, 0)
	cal := &conformal.Calibrated{Clf: clf, QHat: 0.2, Opts: conformal.DefaultOptions()}
	const eta, lam, q, temp = 0.5, 0.4, 0.2, 0.1
	norm2 := w[0]*w[0] + w[1]*w[1]
	ps := []float64{0.45, 0.2}
	var x []float32
	for _, p := range ps {
		s := math.Log(p/(1-p)) / norm2 // x = s·w, so w·x = logit(p)
		x = append(x, float32(s*w[0]), float32(s*w[1]))
	}
	params := Params{StepSize: eta, SetSize: lam}
	search := func(in Ingredients) []float32 {
		t.Helper()
		g, err := paperGenerator("ECCCo (no EBM)", params, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 2, Rule: MaxIterations})
		if err != nil {
			t.Fatal(err)
		}
		return res.X
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	want := func(row int, authorsCode bool) (xs []float64, crossed bool) {
		xs = []float64{float64(x[row*2]), float64(x[row*2+1])}
		for range 2 {
			p := sig(w[0]*xs[0] + w[1]*xs[1])
			grad := -(1 - p) // ∂CE/∂(w·x)
			if p >= 0.5 {
				crossed = true
			}
			if authorsCode && p >= 0.5 {
				ct, co := sig((q-(1-p))/temp), sig((q-p)/temp)
				if 1-ct-co <= 0 || p >= 1-q {
					t.Fatalf("test setup: the hard set is not empty at p = %v", p)
				}
				// Ω = 1 − C_t − C_o; ∂C_t/∂p = C_t(1 − C_t)/T, ∂C_o/∂p = −C_o(1 − C_o)/T; ∂p/∂(w·x) = p(1 − p).
				grad += lam * (-ct*(1-ct)/temp + co*(1-co)/temp) * p * (1 - p)
			}
			for j := range 2 {
				xs[j] -= eta * grad * w[j]
			}
		}
		return xs, crossed
	}
	check := func(name string, got []float32, authorsCode bool) {
		t.Helper()
		for row := range ps {
			xs, crossed := want(row, authorsCode)
			if crossed != (row == 0) {
				t.Fatalf("test setup: row %d crossed p = 0.5: %v", row, crossed)
			}
			for j, v := range xs {
				if math.Abs(float64(got[row*2+j])-v) > 1e-5 {
					t.Errorf("%s, row %d, feature %d: %v after two steps, want %v", name, row, j, got[row*2+j], v)
				}
			}
		}
	}
	check("paper's Ω", search(Ingredients{Calibrated: cal}), false)
	in := Ingredients{Calibrated: cal}.WithAuthorsCode()
	if cal.Opts.EmptySetRule {
		t.Error("WithAuthorsCode changed the caller's calibrated classifier")
	}
	pc := search(in)
	check("authors'-code Ω", pc, true)
	// The two modes must differ on row 0 (else the test checks nothing).
	paper := search(Ingredients{Calibrated: cal})
	if math.Abs(float64(pc[0]-paper[0])) < 1e-4 {
		t.Errorf("authors'-code and paper Ω give the same second step: %v vs %v", pc[0], paper[0])
	}
}

// MAD weights by hand: column a = (0, 1, 3) has median 1 and MAD median(1, 0, 2) = 1; column b = (5, 5, 7)
// has MAD 0; the code adds D·1e-5 = 2e-5.
func TestMADWeightsByHand(t *testing.T) {
	ds := &data.Dataset{X: []float32{0, 5, 1, 5, 3, 7}, Y: []int{0, 1, 0}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1"}}
	w, err := MADWeights(ds)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1 / (1 + 2e-5), 1 / 2e-5}
	for j := range want {
		if math.Abs(float64(w[j])-want[j]) > 1e-6*want[j] {
			t.Errorf("weight %d = %v, want %v", j, w[j], want[j])
		}
	}
}

// In authors'-code mode ECCCo-L1's distance to the samples is summed over the kept samples and divided by
// the chains drawn (ECCCo.jl's distance_from_energy): with 2 kept of 4 chains its pull is halved. The
// first step on a logistic model, by hand: x₁ = x + η(1 − σ(a))·w − η·λ·scale·mean_s sign(x − s).
func TestAuthorsECCCoL1HalvesTheSampleDistance(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1}
	clf := logistic(w, -1)
	x := []float32{0.2, 0.4}
	eta, lam := 0.1, 0.8
	// Class 1's samples: both right of x in feature 0; one above, one below x in feature 1.
	ts := &energy.TargetSamples{D: 2, Chains: 4, Samples: [][]float32{{-3, -3, -2, -2}, {1, 1, 2, 0}}}
	// mean sign(x − s) over the two samples: feature 0: (−1 −1)/2 = −1; feature 1: (−1 + 1)/2 = 0.
	meanSign := []float64{-1, 0}
	a := -1 + 0.2 - 0.4
	for _, tc := range []struct {
		authorsCode bool
		scale       float64
	}{{false, 1}, {true, 0.5}} {
		in := Ingredients{Samples: ts, AuthorsCode: tc.authorsCode, MADWeights: []float32{1, 1}}
		g, err := paperGenerator("ECCCo-L1 (no CP)", Params{StepSize: eta, Cost: 0.3, Energy: lam}, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1}, MaxIterations: 1, Rule: MaxIterations})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 2 {
			// The cost |x′ − x| has zero gradient at x′ = x.
			want := float64(x[j]) + eta*(1-sigmoid(a))*float64(w[j]) - eta*lam*tc.scale*meanSign[j]
			if got := float64(res.X[j]); math.Abs(got-want) > 1e-6 {
				t.Errorf("paper code %v, feature %d: %v after one step, want %v", tc.authorsCode, j, got, want)
			}
		}
	}
}

// The authors' ECCCo-L1 penalty (ECCCo.jl's generator: nsamples = 10, nmin = 1) pulled towards the single
// lowest-energy of its 10 samples and divided by 10: ‖x′ − s₀‖₁/10. The first step on a logistic model,
// by hand: x₁ = x + η(1 − σ(a))·w − η·λ·sign(x − s₀)/10; the other nine samples (all on the far side in
// feature 1) must not pull.
func TestAuthorsECCCoL1PullsTowardsTheLowestSampleOverTen(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1}
	clf := logistic(w, -1)
	x := []float32{0.2, 0.4}
	eta, lam := 0.1, 0.8
	class1 := []float32{1, 1} // s₀, the lowest energy: right of x in feature 0, above it in feature 1
	for range 9 {
		class1 = append(class1, -2, -2)
	}
	all := &energy.TargetSamples{D: 2, Chains: 10, Samples: [][]float32{make([]float32, 20), class1}}
	lowest, err := all.Lowest(1)
	if err != nil {
		t.Fatal(err)
	}
	if lowest.Kept() != 1 || lowest.Chains != 10 || lowest.Samples[1][0] != 1 || lowest.Samples[1][1] != 1 {
		t.Fatalf("Lowest(1) = %+v", lowest)
	}
	g, err := paperGenerator("ECCCo-L1 (no CP)", Params{StepSize: eta, Cost: 0.3, Energy: lam}, Ingredients{Samples: lowest}.WithAuthorsCode())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1}, MaxIterations: 1, Rule: MaxIterations})
	if err != nil {
		t.Fatal(err)
	}
	a := -1 + 0.2 - 0.4
	sign := []float64{-1, -1} // sign(x − s₀)
	for j := range 2 {
		want := float64(x[j]) + eta*(1-sigmoid(a))*float64(w[j]) - eta*lam*sign[j]/10
		if got := float64(res.X[j]); math.Abs(got-want) > 1e-6 {
			t.Errorf("feature %d: %v after one step, want %v", j, got, want)
		}
	}
}

// With samples drawn per counterfactual (energy.TargetSamples.PerRow, as the authors' code drew them for
// every explanation) each row pulls towards its own sample, whatever its target: two rows with the same
// factual and target but samples on opposite sides take opposite pulls. By hand, as above:
// x₁ = x + η(1 − σ(a))·w − η·λ·sign(x − s_row)/10. A set count other than the batch's rows is an error.
func TestAuthorsECCCoL1PerRowSamples(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -1}
	clf := logistic(w, -1)
	x := []float32{0.2, 0.4, 0.2, 0.4}
	eta, lam := 0.1, 0.8
	rows := &energy.TargetSamples{D: 2, Chains: 10, PerRow: true, Samples: [][]float32{{1, 1}, {-1, -1}}}
	g, err := paperGenerator("ECCCo-L1 (no CP)", Params{StepSize: eta, Cost: 0.3, Energy: lam}, Ingredients{Samples: rows}.WithAuthorsCode())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 1, Rule: MaxIterations})
	if err != nil {
		t.Fatal(err)
	}
	a := -1 + 0.2 - 0.4
	signs := [][]float64{{-1, -1}, {1, 1}} // sign(x − s_row)
	for i := range 2 {
		for j := range 2 {
			want := float64(x[j]) + eta*(1-sigmoid(a))*float64(w[j]) - eta*lam*signs[i][j]/10
			if got := float64(res.X[i*2+j]); math.Abs(got-want) > 1e-6 {
				t.Errorf("row %d, feature %d: %v after one step, want %v", i, j, got, want)
			}
		}
	}
	three := &energy.TargetSamples{D: 2, Chains: 10, PerRow: true, Samples: [][]float32{{1, 1}, {-1, -1}, {0, 0}}}
	g, err = paperGenerator("ECCCo-L1 (no CP)", Params{StepSize: eta, Cost: 0.3, Energy: lam}, Ingredients{Samples: three}.WithAuthorsCode())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Search(context.Background(), b, clf, g, Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 1, Rule: MaxIterations}); err == nil {
		t.Error("three sets of samples for two rows: want an error")
	}
}

// ECCCo-L1 (no EBM) in the authors' code still evaluated its distance to the samples, with λ = 0: the
// authors'-code generator carries that penalty with weight 0 (so the metric knows the sampler was built) and
// searches exactly as ECCCo (no EBM); the paper's generator has no such penalty.
func TestAuthorsECCCoL1NoEBMCarriesAZeroWeightSamplePenalty(t *testing.T) {
	ts := &energy.TargetSamples{D: 2, Chains: 10, Samples: [][]float32{{0, 0}, {1, 1}}}
	cal := &conformal.Calibrated{QHat: 0.1, Opts: conformal.DefaultOptions()}
	p := Params{StepSize: 0.1, Cost: 0.1, SetSize: 0.2, Energy: 0.5}
	has := func(in Ingredients) (found bool, weight float64) {
		g, err := paperGenerator("ECCCo-L1 (no EBM)", p, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, pen := range g.Penalties {
			if pen.Name == "samples" {
				return true, pen.Weight
			}
		}
		return false, 0
	}
	if found, _ := has(Ingredients{Calibrated: cal, Samples: ts}); found {
		t.Error("the paper's ECCCo-L1 (no EBM) has a samples penalty")
	}
	if found, w := has(Ingredients{Calibrated: cal, Samples: ts}.WithAuthorsCode()); !found || w != 0 {
		t.Errorf("the authors'-code ECCCo-L1 (no EBM): samples penalty %v with weight %v, want one with weight 0", found, w)
	}
}

// Schut's JSMA search under the authors' stopping rule (GeneratorConditionsAll) goes on past p = 0.5 until
// |∂CE/∂x| = 1 − p < 0.01. By hand, on a one-feature logistic model σ(x) from x = −0.15 with η = 0.1: the
// threshold is reached after 2 steps (x = 0.05), the generic conditions after 48 (x = 4.65, 1 − σ = 0.0095;
// at 4.55 it is 0.0105).
func TestGeneratorConditionsAllStopsSchutOnSmallGradients(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{1}, 0)
	g := Schut(Params{StepSize: 0.1})
	for _, c := range []struct {
		rule  Rule
		iters int
		x     float64
	}{{GeneratorConditions, 2, 0.05}, {GeneratorConditionsAll, 48, 4.65}} {
		res, err := Search(context.Background(), b, clf, g, Request{Factuals: []float32{-0.15}, Targets: []int{1}, Rule: c.rule})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations[0] != c.iters || !res.Converged[0] || math.Abs(float64(res.X[0])-c.x) > 1e-4 {
			t.Errorf("rule %d: %d iterations (converged %v) to x = %v, want %d to %v", c.rule, res.Iterations[0], res.Converged[0], res.X[0], c.iters, c.x)
		}
	}
}
